import { entityAddressAuthority } from '../../domain/entityAddress.ts';
import { isPowerUnit } from '../../domain/units.ts';
import { listSensors } from '../../store/sensors.ts';
import * as wire from '../../contracts/responses.ts';
import { messageBody, unplacedRoute, type PlacedLater } from '../../http/routes.ts';
import { expectType, readMessage } from './message.ts';
import { processed } from './responses.ts';
import { atLeast, type LegacyVersion } from './versions.ts';

/**
 * Connection discovery: the power sensors of the caller's account, newest first, as entity
 * addresses in the version's own form (`<account>:<sensor id>` in 1.x, `fm1.<sensor id>` in
 * 2.0), with their names. Either form, and the names, can be sent back as connections.
 */
const getConnection = (v: LegacyVersion): PlacedLater =>
  unplacedRoute({
    summary: 'List your connections',
    request: { json: messageBody((ctx) => expectType(readMessage(ctx), 'GetConnectionRequest')) },
    command: async ({ ctx, db, user }) => {
      const sensors = (await listSensors(db, { accountId: user.account_id })).filter((s) => isPowerUnit(s.unit)).reverse();
      const authority = entityAddressAuthority(ctx.host, ctx.services.config.hostsAndAuthStart);
      const local = (id: number) => (atLeast(v, '2.0') ? `fm1.${id}` : `${user.account_id}:${id}`);
      return {
        connections: sensors.map((s) => `${authority}:${local(s.id)}`),
        names: sensors.map((s) => s.name),
        ...processed('GetConnectionResponse'),
      };
    },
    response: { schema: wire.legacyAnswer },
  });

/** The connection endpoints, by route name. */
export const connectionEndpoints = { getConnection };
