import { z } from 'zod';
import * as tariffWire from '../../contracts/tariffs.ts';
import { route } from '../../http/routes.ts';
import * as tariffs from '../../store/tariffs.ts';
import { addPriceConnector, changePriceConnector, deleteTariff, saveTariff } from '../../commands/tariffs.ts';
import { connectorReferences, tariffReferences } from '../../policies/tariffs.ts';
import { intText } from '../../contracts/fields.ts';
import { assetById, idParams } from '../load.ts';

const tariffParams = z.object({ id: intText, tariff_id: intText });
const connectorParams = z.object({ id: intText, connector_id: intText });

const presentTariff = (t: tariffs.Tariff) => ({
  id: t.id,
  asset_id: t.assetId,
  definition: t.definition,
  created_at: new Date(t.createdAtMs).toISOString(),
});

const presentConnector = (c: tariffs.PriceConnector) => ({
  id: c.id,
  asset_id: c.assetId,
  sensor: c.sensorId,
  bidding_zone: c.biddingZone,
  bidding_zone_name: tariffWire.biddingZones[c.biddingZone as keyof typeof tariffWire.biddingZones] ?? c.biddingZone,
  created_at: new Date(c.createdAtMs).toISOString(),
  last_written_at: c.lastWrittenAtMs === null ? null : new Date(c.lastWrittenAtMs).toISOString(),
  last_error: c.lastError,
});

/** Prices without CSV files: tariffs and day-ahead connectors, written ahead as price beliefs. */
export const tariffRoutes = [
  route({
    method: 'POST',
    path: '/assets/:id/tariffs',
    summary: 'Add a fixed or time-of-use tariff, written ahead as price beliefs',
    request: { params: idParams, json: tariffWire.tariffDefinition },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'create-children') }),
    // Written later for the asset's account, whoever stores it: its account must be able to write there too.
    references: ({ body, loaded }) => ({ refs: tariffReferences(body), usableBy: loaded.asset.account_id }),
    transaction: true,
    command: ({ context, principal, body, loaded: { asset } }) => saveTariff(context, principal, { asset, definition: body }),
    response: { status: 201, schema: tariffWire.tariff, present: presentTariff, description: 'the tariff' },
  }),
  route({
    method: 'PUT',
    path: '/assets/:id/tariffs/:tariff_id',
    summary: 'Change a tariff: its prices are written anew from the start of today, superseding the old ones',
    request: { params: tariffParams, json: tariffWire.tariffDefinition },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    references: ({ body, loaded }) => ({ refs: tariffReferences(body), usableBy: loaded.asset.account_id }),
    transaction: true,
    command: ({ context, principal, body, params, loaded: { asset } }) =>
      saveTariff(context, principal, { asset, id: params.tariff_id, definition: body }),
    response: { schema: tariffWire.tariff, present: presentTariff, description: 'the changed tariff' },
  }),
  route({
    method: 'DELETE',
    path: '/assets/:id/tariffs/:tariff_id',
    summary:
      'Delete a tariff: it is no longer written, and its prices from the start of today (its time zone) on are withdrawn, so schedules no longer plan with them; earlier days keep theirs',
    request: { params: tariffParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    transaction: true,
    command: ({ context, principal, params, loaded: { asset } }) => deleteTariff(context, principal, { asset, id: params.tariff_id }),
    response: { status: 204, schema: null, description: 'deleted, its prices from today on withdrawn' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/tariffs',
    summary: "List an asset's tariffs",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => tariffs.listTariffs(db, { assetId: loaded.asset.id }),
    response: { schema: z.array(tariffWire.tariff), present: (list) => list.map(presentTariff) },
  }),
  route({
    method: 'GET',
    path: '/price-connectors/bidding-zones',
    summary: 'List the bidding zones a day-ahead price connector may follow',
    command: async () => Object.entries(tariffWire.biddingZones).map(([code, name]) => ({ code, name })),
    response: { schema: tariffWire.biddingZoneList },
  }),
  route({
    method: 'GET',
    path: '/price-connectors/platform',
    summary: 'Whether the operator set a token for the ENTSO-E transparency platform (never the token itself)',
    command: async ({ context }) => ({ token_configured: context.config.entsoe.token !== null }),
    response: { schema: tariffWire.pricePlatform },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/price-connectors',
    summary: "Write a bidding zone's ENTSO-E day-ahead prices to a price sensor (when the operator set a token), at once and hourly",
    request: { params: idParams, json: tariffWire.priceConnectorInput },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'create-children') }),
    references: ({ body, loaded }) => ({ refs: connectorReferences(body.sensor), usableBy: loaded.asset.account_id }),
    // Stored in its own transaction, then its prices are fetched and written at once: the platform
    // may take its time, and a failed fetch leaves the connector stored with its error.
    command: async ({ ctx, db, context, principal, body, loaded: { asset } }) => {
      const input = { asset, sensorId: body.sensor, biddingZone: body.bidding_zone };
      const added = await db.transaction((trx) => addPriceConnector({ ...context, db: trx }, principal, input));
      return ctx.services.prices.writeConnectorNow(added);
    },
    response: { status: 201, schema: tariffWire.priceConnector, present: presentConnector, description: 'the connector' },
  }),
  route({
    method: 'PUT',
    path: '/assets/:id/price-connectors/:connector_id',
    summary: 'Point a day-ahead price connector at another price sensor or bidding zone; its prices are written at once',
    request: { params: connectorParams, json: tariffWire.priceConnectorInput },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    references: ({ body, loaded }) => ({ refs: connectorReferences(body.sensor), usableBy: loaded.asset.account_id }),
    // As when it is added: changed in its own transaction, then written at once.
    command: async ({ ctx, db, context, principal, body, params, loaded: { asset } }) => {
      const input = { asset, id: params.connector_id, sensorId: body.sensor, biddingZone: body.bidding_zone };
      const changed = await db.transaction((trx) => changePriceConnector({ ...context, db: trx }, principal, input));
      return ctx.services.prices.writeConnectorNow(changed);
    },
    response: { schema: tariffWire.priceConnector, present: presentConnector, description: 'the changed connector' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/price-connectors',
    summary: "List an asset's day-ahead price connectors",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => tariffs.listPriceConnectors(db, { assetId: loaded.asset.id }),
    response: { schema: z.array(tariffWire.priceConnector), present: (list) => list.map(presentConnector) },
  }),
];
