import { useState } from 'react';
import { z } from 'zod';
import { API, request } from '../../api/client.ts';
import * as tariffWire from '../../../../server/src/contracts/tariffs.ts';
import * as wire from '../../../../server/src/contracts/responses.ts';
import { useApi } from '../../hooks/useApi.ts';
import { Empty, ErrorNotice } from '../Status.tsx';
import { PriceConnectors } from './PriceConnectors.tsx';
import { TariffForm, type PriceSensor, type ShownTariff } from './TariffForm.tsx';

const tariffList = z.array(tariffWire.tariff);

const dayWords = { all: 'Every day', weekdays: 'Weekdays', weekend: 'Weekend' } as const;

/** A tariff's prices and windows in words, in the unit they were entered in. */
function describeTariff(d: tariffWire.TariffDefinition, sensors: PriceSensor[]): string[] {
  const unit = d.unit ?? sensors.find((s) => s.id === d.consumption_price_sensor)?.unit ?? '';
  return [
    `Base ${d.price} ${unit}`,
    ...d.periods.map(
      (p) => `${dayWords[p.days]}${p.months ? ` (months ${p.months.join(', ')})` : ''} ${p.from}–${p.to}: ${p.price} ${unit}`,
    ),
    ...(d.feed_in_price === undefined ? [] : [`Feed-in ${d.feed_in_price} ${unit}`]),
  ];
}

/** Reads back a stored tariff's definition (stored checked, so it reads). */
function shown(t: z.infer<typeof tariffWire.tariff>): ShownTariff | undefined {
  const read = tariffWire.tariffDefinition.safeParse(t.definition);
  return read.success ? { id: t.id, definition: read.data } : undefined;
}

/**
 * A site's prices: its tariffs listed with their windows, each correctable and deletable; a form to
 * add one, which offers to make a price sensor when the site has none; and the day-ahead price
 * connector. Price sensors are the site's own sensors in a currency per energy unit.
 */
export function TariffsSection({ assetId, zone }: { assetId: string; zone: string }) {
  const list = useApi(`${API}/assets/${assetId}/tariffs`, undefined, tariffList);
  const siteSensors = useApi(`${API}/sensors`, { asset_id: assetId }, wire.sensorList);
  const [editing, setEditing] = useState<number>();
  const [deleting, setDeleting] = useState<number>();
  const [error, setError] = useState<unknown>();
  const sensors: PriceSensor[] = (siteSensors.data ?? []).filter((s) => /^[A-Z]{3}\/\w*Wh$/.test(s.unit));
  const tariffs = (list.data ?? []).flatMap((t) => shown(t) ?? []);
  const reload = () => {
    list.reload();
    siteSensors.reload();
  };

  const remove = async (id: number) => {
    try {
      await request(`${API}/assets/${assetId}/tariffs/${id}`, { method: 'DELETE' });
      setError(undefined);
      setDeleting(undefined);
      reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <ErrorNotice error={list.error ?? siteSensors.error ?? error} />
      {tariffs.length > 0 && (
        <ul aria-label="Tariffs" className="card plain-list">
          {tariffs.map((t) => (
            <li key={t.id} aria-label={t.definition.name}>
              <strong>{t.definition.name}</strong> on{' '}
              {sensors.find((s) => s.id === t.definition.consumption_price_sensor)?.name ??
                `sensor ${t.definition.consumption_price_sensor}`}
              <ul>
                {describeTariff(t.definition, sensors).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {deleting === t.id ? (
                <p role="alert">
                  Delete {t.definition.name}? Its prices from today on are withdrawn, so schedules no longer use them.{' '}
                  <button type="button" onClick={() => void remove(t.id)}>
                    Confirm delete
                  </button>{' '}
                  <button type="button" onClick={() => setDeleting(undefined)}>
                    Keep it
                  </button>
                </p>
              ) : (
                <div className="toolbar">
                  {t.definition.periods.length <= 1 && (
                    <button type="button" onClick={() => setEditing(t.id)} aria-label={`Correct ${t.definition.name}`}>
                      Correct
                    </button>
                  )}
                  <button type="button" onClick={() => setDeleting(t.id)} aria-label={`Delete ${t.definition.name}`}>
                    Delete
                  </button>
                </div>
              )}
              {editing === t.id && (
                <TariffForm
                  assetId={assetId}
                  sensors={sensors}
                  editing={t}
                  onSaved={() => {
                    setEditing(undefined);
                    reload();
                  }}
                  onCancel={() => setEditing(undefined)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {siteSensors.data && sensors.length === 0 && <MakePriceSensor assetId={assetId} zone={zone} onMade={siteSensors.reload} />}
      {siteSensors.data && <TariffForm key={sensors.length} assetId={assetId} sensors={sensors} onSaved={reload} />}
      <h2>Day-ahead prices (ENTSO-E)</h2>
      <PriceConnectors assetId={assetId} sensors={sensors} />
    </>
  );
}

/** A fresh site has no price sensor: one press makes an hourly one on the site, in EUR/MWh (as day-ahead prices are). */
function MakePriceSensor({ assetId, zone, onMade }: { assetId: string; zone: string; onMade: () => void }) {
  const [error, setError] = useState<unknown>();
  const make = async () => {
    try {
      const json = {
        name: 'Electricity price',
        unit: 'EUR/MWh',
        event_resolution: 'PT1H',
        generic_asset_id: Number(assetId),
        timezone: zone,
      };
      await request(`${API}/sensors`, { method: 'POST', json });
      onMade();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div className="card" role="region" aria-label="No price sensor">
      <Empty>This site has no price sensor yet: a tariff writes its prices to one.</Empty>
      <button type="button" onClick={() => void make()}>
        Make a price sensor
      </button>
      <ErrorNotice error={error} />
    </div>
  );
}
