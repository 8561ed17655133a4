import { z } from 'zod';
import { pageOf, pageQuery, pageSchema, sortedAsAsked, type PageQuery } from '../../contracts/paging.ts';
import { route } from '../../http/routes.ts';
import { auditEntries, type AuditEntry } from '../../store/auditLog.ts';
import { getAccount } from '../../store/accounts.ts';
import { accountById, assetById, idParams, userById } from '../load.ts';

/**
 * FlexMeasures 1.0's audit logs: what was done to an account (and its users), a user, an asset
 * (and its data). Entries are written by the commands that make the changes, in their transaction.
 */

const logQuery = pageQuery(['event_datetime']);

/** An entry as 1.0 shows it; the time in UTC. */
const presentEntry = (e: AuditEntry) => ({
  event: e.event,
  event_datetime: new Date(e.event_datetime).toISOString(),
  active_user_name: e.active_user_name,
  active_user_id: e.active_user_id,
});
const entry = z.object({
  event: z.string(),
  event_datetime: z.string(),
  active_user_name: z.string().nullable(),
  active_user_id: z.number().nullable(),
});

/** 1.0's log filter: any space-separated term in the event or in the acting user's name (any case). */
function searched(entries: AuditEntry[], filter: string | undefined): AuditEntry[] {
  const terms =
    filter
      ?.split(' ')
      .filter((t) => t !== '')
      .map((t) => t.toLowerCase()) ?? [];
  if (!terms.length) return entries;
  return entries.filter((e) =>
    terms.some((t) => e.event.toLowerCase().includes(t) || (e.active_user_name ?? '').toLowerCase().includes(t)),
  );
}

const byTime = (e: AuditEntry) => e.event_datetime;

/** A log as a list, or as a page when one is asked for (`always`: as 1.0's asset log, page 1 by default). */
function listed(entries: AuditEntry[], q: PageQuery<'event_datetime'>, always = false) {
  const found = searched(entries, q.filter);
  if (q.page === undefined && !always) return sortedAsAsked(q, found, byTime).map(presentEntry);
  const page = pageOf(q, entries.length, found, byTime);
  return { ...page, data: page.data.map(presentEntry) };
}

export const auditLogRoutes = [
  route({
    method: 'GET',
    path: '/accounts/:id/auditlog',
    summary: 'Get the history of actions for a specific account.',
    request: { params: idParams },
    load: async ({ db, params }) => {
      const { value: account } = await accountById(db, params.id, 'read');
      return {
        account: {
          value: account,
          permission: 'read',
          on: { kind: 'account-audit', id: account.id, consultancyAccountId: account.consultancy_account_id },
        },
      };
    },
    // 1.0 lists an account's log whole, with three fields per entry.
    command: async ({ db, loaded }) =>
      (await auditEntries(db, { accountId: loaded.account.id })).map((e) => {
        const { event, event_datetime, active_user_id } = presentEntry(e);
        return { event, event_datetime, active_user_id };
      }),
    response: { schema: z.array(entry.pick({ event: true, event_datetime: true, active_user_id: true })) },
  }),
  route({
    method: 'GET',
    path: '/users/:id/auditlog',
    summary: 'Get history of user actions.',
    request: { params: idParams, query: logQuery },
    load: async ({ db, params }) => {
      const { value: user } = await userById(db, params.id, 'read');
      const account = (await getAccount(db, user.account_id))!;
      return {
        user: {
          value: user,
          permission: 'read',
          on: { kind: 'user-audit', id: user.id, accountId: user.account_id, consultancyAccountId: account.consultancy_account_id },
        },
      };
    },
    command: async ({ db, query, loaded }) => listed(await auditEntries(db, { userId: loaded.user.id }), query),
    response: { schema: z.union([z.array(entry), pageSchema(entry)]) },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/auditlog',
    summary: 'Get history of asset related actions.',
    request: { params: idParams, query: logQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: async ({ db, query, loaded }) => listed(await auditEntries(db, { assetId: loaded.asset.id }), query, true),
    response: { schema: pageSchema(entry) },
  }),
];
