/**
 * Refusals below the edges are typed: a kind, a message for people and, for invalid input, each
 * field's path and messages. The HTTP chain words them as the reference does (one mapper), the
 * CLI as text; a command's refusal and the API's answer to the same input say the same thing.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalText } from '../../server/src/cli/context.ts';
import { createAsset } from '../../server/src/commands/assets.ts';
import type { CommandContext } from '../../server/src/commands/context.ts';
import { AppError, conflict, forbidden, notFound, unprocessable } from '../../server/src/errors.ts';
import { errorAnswer } from '../../server/src/http/errorAnswer.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let accountId: number;
let token: string;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

function run<R>(work: (context: CommandContext<Knex.Transaction>) => Promise<R>): Promise<R> {
  const { reader, config, clock, jobs, passwords, schedulerPlugins } = t.server.services;
  return t.db.transaction((trx) => work({ db: trx, reader, config, clock, jobs, hash: passwords.hash, schedulerPlugins }));
}

const refusal = async (work: Promise<unknown>) => {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

describe('domain errors', () => {
  it('carry the kind and the field paths of invalid input; the API answers the same input in the reference shape', async () => {
    const input = { name: 'typo', generic_asset_type_id: 999_999, account_id: accountId };
    const err = await refusal(run((c) => createAsset(c, { kind: 'operator' }, input)));
    const messages = ["GenericAssetType with id 999999 doesn't exist."];
    expect(err).toMatchObject({ kind: 'invalid', fields: [{ path: ['json', 'generic_asset_type_id'], messages }] });
    expect(err.message).toBe(`generic_asset_type_id: ${messages[0]}`);
    const res = await t.request('POST', '/api/v3_0/assets', { token, json: input });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: { json: { generic_asset_type_id: messages } },
      result: 'Rejected',
      status: 'UNPROCESSABLE_ENTITY',
    });
  });

  it('keep nested paths in order and build the wire body from them alone', () => {
    const err = unprocessable('json', {
      'flex-model': { 'soc-min': ['Not a valid number.'] },
      'soc-targets': { 0: { value: ['Missing data for required field.'] } },
    });
    expect(err.fields).toEqual([
      { path: ['json', 'flex-model', 'soc-min'], messages: ['Not a valid number.'] },
      { path: ['json', 'soc-targets', '0', 'value'], messages: ['Missing data for required field.'] },
    ]);
    expect(JSON.stringify(errorAnswer(err).body)).toBe(
      '{"message":{"json":{"flex-model":{"soc-min":["Not a valid number."]},"soc-targets":{"0":{"value":["Missing data for required field."]}}}},' +
        '"result":"Rejected","status":"UNPROCESSABLE_ENTITY"}',
    );
  });

  it('word refusals, absences and clashes for HTTP and the command line', () => {
    expect([forbidden(), notFound('Asset 7 not found.'), conflict('Taken', { status: 400, detail: 'email a@b.c is taken' })]).toMatchObject(
      [{ kind: 'refused', fields: undefined }, { kind: 'not-found' }, { kind: 'conflict', detail: 'email a@b.c is taken' }],
    );
    expect(errorAnswer(forbidden())).toEqual({
      status: 403,
      body: { result: 'Rejected', status: 'INVALID_SENDER', message: 'You cannot be authorized for this content or functionality.' },
      headers: {},
    });
    const clash = conflict('Duplicate user already exists', { status: 400, detail: 'email a@b.c is taken' });
    expect(JSON.stringify(errorAnswer(clash).body)).toBe(
      '{"message":"Duplicate user already exists","detail":"email a@b.c is taken","status":400}',
    );
    expect(refusalText(clash)).toBe('Duplicate user already exists: email a@b.c is taken');
  });
});
