import { useMemo, useState } from 'react';
import { API } from '../../api/client.ts';
import * as wire from '../../api/contracts.ts';
import { useApi } from '../../hooks/useApi.ts';
import { useRange } from '../../hooks/useRange.ts';
import { storedFlex } from '../../lib/attributes.ts';
import { deviations, overlaySpec } from '../charts/overlaySpec.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { Field } from '../Field.tsx';
import { RangeControls } from '../RangeControls.tsx';
import { Empty, ErrorNotice } from '../Status.tsx';
import { readPlanActual, TOLERANCE_SHARE } from './planActual.ts';
import { IdSelect, withUnit } from '../IdSelect.tsx';

interface SiteSensor {
  id: number;
  name: string;
  unit: string;
  /** How a power sensor stores its values, named in its choice. */
  sign?: string | null;
}

interface Props {
  assetId: string;
  zone: string;
  /** The site's sensors (those of the assets below it included). */
  sensors: SiteSensor[];
}

const isPower = (s: SiteSensor) => /^[kMG]?W$/.test(s.unit);
const isSoc = (s: SiteSensor) => /^[kM]?Wh$|^%$/.test(s.unit);
const isPrice = (s: SiteSensor) => s.unit.includes('/');

/** The consumption price sensor of a stored flex-context, in either dialect (`consumption-price-sensor: 5`, `consumption-price: {sensor: 5}`). */
function contextPriceSensor(context: Record<string, unknown>): number | undefined {
  const old = context['consumption-price-sensor'];
  const price = context['consumption-price'];
  const id = typeof old === 'number' ? old : price && typeof price === 'object' ? (price as { sensor?: unknown }).sensor : undefined;
  return typeof id === 'number' ? id : undefined;
}

/** A choice of sensor; `none` where the chart can do without. */
function SensorChoice(props: {
  label: string;
  options: SiteSensor[];
  value: number | undefined;
  onChange: (id?: number) => void;
  optional?: boolean;
}) {
  return (
    <Field label={props.label}>
      <IdSelect
        value={props.value ?? ''}
        onChange={(e) => props.onChange(e.target.value ? Number(e.target.value) : undefined)}
        items={props.options}
        none={props.optional ? 'none' : undefined}
        label={withUnit}
      />
    </Field>
  );
}

/**
 * The plan against what happened, for one device of the site: its scheduled and measured power
 * and state of charge, the prices on a second axis, and the steps where the measurement left the
 * plan shaded; over a day, week or month the operator picks.
 */
export function PlanActualChart({ assetId, zone, sensors }: Props) {
  const asset = useApi(`${API}/assets/${assetId}`, undefined, wire.assetAnswer);
  const { size, anchor, range, setRange } = useRange(zone, 'day');
  const powers = sensors.filter(isPower);
  const socs = sensors.filter(isSoc);
  const storedPrice = asset.data ? contextPriceSensor(storedFlex(asset.data).context) : undefined;
  // The flex-context's price sensor may belong to a market outside the site.
  const prices = [
    ...sensors.filter(isPrice),
    ...(storedPrice !== undefined && !sensors.some((s) => s.id === storedPrice)
      ? [{ id: storedPrice, name: `sensor ${storedPrice}`, unit: 'price' }]
      : []),
  ];
  const [chosen, setChosen] = useState<{ power?: number; soc?: number | null; price?: number | null }>({});
  const [positive, setPositive] = useState<'consumption' | 'production'>('consumption');
  const power = chosen.power ?? powers[0]?.id;
  // Until the operator chooses (null: none), the first state of charge and the flex-context's price.
  const soc = chosen.soc === null ? undefined : (chosen.soc ?? socs[0]?.id);
  const price = chosen.price === null ? undefined : (chosen.price ?? storedPrice ?? prices[0]?.id);

  const startMs = range.start.toMillis();
  const endMs = range.end.toMillis();
  const query = { power, soc, price, startMs, endMs, zone, positive };
  // Wait for the asset: its flex-context names the default price sensor.
  const data = useApi(power !== undefined && asset.data ? `${API}/sensors/${power}/data` : null, query, readPlanActual);
  const spec = useMemo(() => (data.data ? overlaySpec(data.data) : undefined), [data.data]);
  const marked = data.data ? deviations(data.data).length : 0;

  // The chart can do without these two (null: the operator chose none).
  const optionalChoices = [
    { key: 'soc', label: 'State of charge sensor', options: socs, value: soc },
    { key: 'price', label: 'Price sensor', options: prices, value: price },
  ] as const;

  if (!powers.length) return <Empty>Add a power sensor to this site to compare its plan with its measurements.</Empty>;
  return (
    <div className="plan-actual">
      <div className="grid-form">
        <SensorChoice label="Power sensor" options={powers} value={power} onChange={(id) => setChosen({ ...chosen, power: id })} />
        {optionalChoices.map((c) => (
          <SensorChoice
            key={c.key}
            label={c.label}
            options={c.options}
            value={c.value}
            optional
            onChange={(id) => setChosen({ ...chosen, [c.key]: id ?? null })}
          />
        ))}
        <Field label="Power drawn" hint="Converted from the way the sensor stores it.">
          <select value={positive} onChange={(e) => setPositive(e.target.value === 'production' ? 'production' : 'consumption')}>
            <option value="consumption">Consumption positive</option>
            <option value="production">Production positive</option>
          </select>
        </Field>
      </div>
      <RangeControls size={size} anchor={anchor} zone={zone} onChange={setRange} />
      <ErrorNotice error={data.error ?? asset.error} />
      {data.data && !spec ? (
        <Empty>No plan and no measurements of these sensors in this window.</Empty>
      ) : (
        <VegaChart spec={spec} label="Plan against actual" />
      )}
      {spec && data.data && (
        <p className="muted" role="note" aria-label="Deviations">
          {data.data.tolerance === undefined
            ? 'No schedule in this window.'
            : `Shaded: ${marked} step(s) where measured power is more than ${data.data.tolerance.toLocaleString('en', { maximumFractionDigits: 3 })} ${data.data.power.unit} off the plan (${TOLERANCE_SHARE * 100} % of the largest planned power). Dashed lines are measurements.`}
        </p>
      )}
    </div>
  );
}
