import * as devices from '../../contracts/devices.ts';
import { route } from '../../http/routes.ts';
import { setUpDevice } from '../../commands/setUpDevice.ts';
import { replaceRecurringTargets } from '../../commands/recurringTargets.ts';
import { listRecurringSocTargets, type RecurringSocTarget } from '../../store/recurringSocTargets.ts';
import { assetById, idParams } from '../load.ts';

const presentTargets = (list: RecurringSocTarget[]) => ({
  targets: list.map(({ id, days, time, timezone, value }) => ({ id, days, time, timezone, value })),
});

/** Plain device set-up under a site, and a device's recurring state-of-charge targets. */
export const deviceRoutes = [
  route({
    method: 'POST',
    path: '/assets/:id/devices',
    summary: 'Set up a battery, EV charger, solar panels or process under a site: its asset, sensors and flex-model',
    request: { params: idParams, json: devices.deviceSetup },
    load: async ({ db, params }) => ({ site: await assetById(db, params.id, 'create-children') }),
    transaction: true,
    command: ({ context, principal, body, loaded: { site } }) => setUpDevice(context, principal, { site, body }),
    response: { status: 201, schema: devices.deviceSetupAnswer, description: 'what was made' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/recurring-soc-targets',
    summary: "List a device's recurring state-of-charge targets",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => listRecurringSocTargets(db, loaded.asset.id),
    response: { schema: devices.recurringSocTargetList, present: presentTargets },
  }),
  route({
    method: 'PUT',
    path: '/assets/:id/recurring-soc-targets',
    summary: "Replace a device's recurring state-of-charge targets, which automations turn into each run's soc-targets",
    request: { params: idParams, json: devices.recurringSocTargetsPut },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    transaction: true,
    command: ({ context, principal, body, loaded: { asset } }) =>
      replaceRecurringTargets(context, principal, { asset, targets: body.targets }),
    response: { schema: devices.recurringSocTargetList, present: presentTargets },
  }),
];
