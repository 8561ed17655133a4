import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import * as tariffWire from '../../../../server/src/contracts/tariffs.ts';
import { useSession } from '../../app/session.tsx';
import { useApi } from '../../hooks/useApi.ts';
import { formatTime } from '../../lib/time.ts';
import { Field } from '../Field.tsx';
import { IdSelect, withUnit } from '../IdSelect.tsx';
import { ErrorNotice } from '../Status.tsx';
import type { PriceSensor } from './TariffForm.tsx';

const connectorList = z.array(tariffWire.priceConnector);

/** How a connector's last fetch ended, in words. */
function outcome(c: z.infer<typeof tariffWire.priceConnector>, zone: string): string {
  if (c.last_error) return `Last fetch failed: ${c.last_error}`;
  return c.last_written_at ? `Prices written at ${formatTime(c.last_written_at, zone)}` : 'Not fetched yet';
}

/**
 * The ENTSO-E day-ahead price connector: whether the operator set a token (never the token), the
 * bidding zones it can follow, this site's connectors with how their last fetch ended, and a form
 * to add one.
 */
export function PriceConnectors({ assetId, sensors }: { assetId: string; sensors: PriceSensor[] }) {
  const zone = useSession().user.timezone;
  const platform = useApi(`${API}/price-connectors/platform`, undefined, tariffWire.pricePlatform);
  const zones = useApi(`${API}/price-connectors/bidding-zones`, undefined, tariffWire.biddingZoneList);
  const connectors = useApi(`${API}/assets/${assetId}/price-connectors`, undefined, connectorList);
  const [form, setForm] = useState({ sensor: '', zone: '' });
  const [error, setError] = useState<unknown>();
  const fields = error instanceof ApiError ? error.fields : {};

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const json = { sensor: Number(form.sensor), bidding_zone: form.zone };
      await request(`${API}/assets/${assetId}/price-connectors`, { method: 'POST', json, answer: tariffWire.priceConnector });
      setError(undefined);
      connectors.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div className="card" role="region" aria-label="Day-ahead prices">
      <ErrorNotice error={platform.error ?? zones.error ?? connectors.error} />
      {platform.data && (
        <p role="status" aria-label="Token">
          {platform.data.token_configured
            ? 'Token: configured by the operator. Connectors fetch day-ahead prices every hour.'
            : 'Token: not configured. The operator sets FLEXSITE_ENTSOE_TOKEN; until then connectors fetch nothing.'}
        </p>
      )}
      {connectors.data && connectors.data.length > 0 && (
        <ul aria-label="Price connectors">
          {connectors.data.map((c) => (
            <li key={c.id}>
              {c.bidding_zone_name} → {sensors.find((s) => s.id === c.sensor)?.name ?? `sensor ${c.sensor}`}: {outcome(c, zone)}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void submit(e)} aria-label="Add a price connector">
        <Field label="Bidding zone" errors={fields.bidding_zone}>
          <select value={form.zone} onChange={(e) => setForm({ ...form, zone: e.target.value })} required>
            <option value="">Choose…</option>
            {(zones.data ?? []).map((z) => (
              <option key={z.code} value={z.code}>
                {z.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Write to price sensor" errors={fields.sensor}>
          <IdSelect
            value={form.sensor}
            onChange={(e) => setForm({ ...form, sensor: e.target.value })}
            required
            items={sensors}
            none="Choose…"
            label={withUnit}
          />
        </Field>
        <ErrorNotice error={error} />
        <button type="submit">Add connector</button>
      </form>
    </div>
  );
}
