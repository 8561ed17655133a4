import type { Command } from 'commander';
import { saveTariff } from '../commands/tariffs.ts';
import { tariffDefinition } from '../contracts/tariffs.ts';
import { fieldMessages } from '../contracts/validate.ts';
import { getAsset } from '../store/assets.ts';
import * as store from '../store/tariffs.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { group, int } from './options.ts';

/** A tariff as a listing row: its price sensor and windows in words, prices in the unit entered. */
export function tariffRow(t: store.Tariff): Record<string, unknown> {
  const d = t.definition;
  const unit = d.unit ?? '(sensor unit)';
  const windows = d.periods.map((p) => `${p.days}${p.months ? ` months ${p.months.join(',')}` : ''} ${p.from}–${p.to}: ${p.price}`);
  return {
    id: t.id,
    name: d.name,
    asset_id: t.assetId,
    price_sensor: d.consumption_price_sensor,
    unit,
    price: d.price,
    windows: windows.join('; '),
  };
}

export const tariffColumns = ['id', 'name', 'asset_id', 'price_sensor', 'unit', 'price', 'windows'];

/** `edit tariff`; listing and deleting sit with the other kinds in resources.ts. */
export function registerTariffCommands(program: Command, cli: CliContext): void {
  group(program, 'edit', 'change things')
    .command('tariff')
    .description("replace a tariff's definition (the API's JSON); its new prices supersede the old ones from the start of today")
    .requiredOption('--id <id>', 'id of the tariff', int)
    .requiredOption(
      '--definition <json>',
      'the whole definition, e.g. {"name":"Home","timezone":"Europe/Amsterdam","consumption_price_sensor":3,"unit":"EUR/kWh","price":0.3}',
    )
    .action(async (o: { id: number; definition: string }) => {
      const db = await cli.db();
      const tariff = (await store.listTariffs(db)).find((t) => t.id === o.id);
      if (!tariff) throw new CliError(`tariff ${o.id} not found`);
      let json: unknown;
      try {
        json = JSON.parse(o.definition);
      } catch {
        throw new CliError('--definition is not JSON');
      }
      const parsed = tariffDefinition.safeParse(json);
      if (!parsed.success) {
        throw new CliError(
          Object.entries(fieldMessages(parsed.error.issues))
            .map(([f, m]) => `${f}: ${JSON.stringify(m)}`)
            .join('; '),
        );
      }
      const asset = (await getAsset(db, tariff.assetId))!;
      const changed = await cli.write((context) => saveTariff(context, OPERATOR, { asset, id: o.id, definition: parsed.data }));
      cli.print(tariffRow(changed), `Changed tariff ${changed.id} "${changed.definition.name}"`);
    });
}
