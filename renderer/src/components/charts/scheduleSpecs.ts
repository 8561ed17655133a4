import type { JobResult, SocTarget } from '../../api/types.ts';
import { formatTime, wallClockMs } from '../../lib/time.ts';

/** A Vega-Lite spec with its data inline. */
export type Spec = Record<string, unknown>;

interface Row {
  /** Wall-clock time of the site encoded as UTC, for the axis (see `wallClockMs`). */
  t: number;
  time: string;
  series: string;
  value: number;
}

export const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * Picks kilo or mega for values given in mega-units, so that axes read "120 kW", not "0.12 MW".
 * @param valuesMega the values in MW or MWh.
 * @param base `W` or `Wh`.
 * @returns the unit and the factor to multiply the values by.
 */
export function readableUnit(valuesMega: number[], base: 'W' | 'Wh'): { unit: string; factor: number } {
  const largest = Math.max(0, ...valuesMega.map(Math.abs));
  return largest > 0 && largest < 1 ? { unit: `k${base}`, factor: 1000 } : { unit: `M${base}`, factor: 1 };
}

export const timeAxis = (zone: string) => ({
  field: 't',
  type: 'temporal',
  scale: { type: 'utc' },
  // A `utc` scale formats in UTC already; Vega-Lite drops a `formatType: 'utc'` (and its format) with a warning.
  axis: { title: `Time (${zone})`, format: '%b %d %H:%M', labelOverlap: true },
});

/** Per-step values as a step line: each value holds from its step's start to the next one. */
function stepRows(series: string, values: number[], result: JobResult, zone: string, factor = 1): Row[] {
  const rows = values.map((v, i) => {
    const ms = result.start_ms + i * result.step_ms;
    return { t: wallClockMs(ms, zone), time: formatTime(ms, zone), series, value: v * factor };
  });
  if (values.length) {
    // One more point at the end of the last step, so that the last value is drawn for its whole step.
    const ms = result.start_ms + values.length * result.step_ms;
    rows.push({ t: wallClockMs(ms, zone), time: formatTime(ms, zone), series, value: values[values.length - 1] * factor });
  }
  return rows;
}

function lineChart(title: string, rows: Row[], yTitle: string, zone: string, extraLayers: Spec[] = []): Spec {
  return {
    $schema: SCHEMA,
    title,
    width: 'container',
    height: 180,
    data: { values: rows },
    layer: [
      {
        mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
        encoding: {
          x: timeAxis(zone),
          // Ticks as numbers people write (`0`, `2.5`), not `0.000000` when a schedule is flat.
          y: { field: 'value', type: 'quantitative', title: yTitle, axis: { format: ',.3~f' } },
          color: { field: 'series', type: 'nominal', title: null },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 30, opacity: 0 },
        encoding: {
          x: timeAxis(zone),
          y: { field: 'value', type: 'quantitative' },
          tooltip: [
            { field: 'series', title: 'Series' },
            { field: 'time', title: 'Time' },
            { field: 'value', title: yTitle, format: ',.3~f' },
          ],
        },
      },
      ...extraLayers,
    ],
  };
}

/**
 * Power per step of each scheduled device, consumption positive.
 * @param result the job result.
 * @param zone the site's time zone.
 * @param names sensor names by id.
 * @returns the spec.
 */
export function powerSpec(result: JobResult, zone: string, names: Record<number, string>): Spec {
  const { unit, factor } = readableUnit(
    result.devices.flatMap((d) => d.power_mw),
    'W',
  );
  const rows = result.devices.flatMap((d) => stepRows(names[d.sensor_id] ?? `sensor ${d.sensor_id}`, d.power_mw, result, zone, factor));
  return lineChart('Scheduled power (consumption positive)', rows, `Power (${unit})`, zone);
}

/**
 * Site power per step: the scheduled devices plus the inflexible ones.
 * @returns the spec, or undefined when the job has no site power.
 */
export function sitePowerSpec(result: JobResult, zone: string): Spec | undefined {
  if (!result.site_power_mw?.length) return undefined;
  const { unit, factor } = readableUnit(result.site_power_mw, 'W');
  return lineChart('Site power', stepRows('site', result.site_power_mw, result, zone, factor), `Power (${unit})`, zone);
}

/**
 * Consumption and production prices per step, as the scheduler used them.
 * @returns the spec, or undefined when the job has no prices.
 */
export function priceSpec(result: JobResult, zone: string): Spec | undefined {
  const rows = [
    ...stepRows('consumption price', result.consumption_price ?? [], result, zone),
    ...stepRows('production price', result.production_price ?? [], result, zone),
  ];
  if (!rows.length) return undefined;
  return lineChart('Prices', rows, 'Price (per MWh)', zone);
}

const targetTime = (t: SocTarget) => t.atMs ?? t.endMs ?? t.startMs;

/**
 * State of charge at each step boundary against its minimum, maximum and targets.
 * @returns the spec, or undefined when no device has a state of charge.
 */
export function socSpec(result: JobResult, zone: string, names: Record<number, string>): Spec | undefined {
  const devices = result.devices.filter((d) => d.soc_mwh?.length);
  if (!devices.length) return undefined;
  const factor = result.soc_unit === 'kWh' ? 1000 : 1;
  const unit = result.soc_unit ?? 'MWh';
  const rows: Row[] = devices.flatMap((d) =>
    (d.soc_mwh ?? []).map((v, j) => {
      const ms = result.start_ms + j * result.step_ms;
      return {
        t: wallClockMs(ms, zone),
        time: formatTime(ms, zone),
        series: names[d.sensor_id] ?? `sensor ${d.sensor_id}`,
        value: v * factor,
      };
    }),
  );
  const limits = devices.flatMap((d) => [
    ...(d.soc_min_mwh !== undefined ? [{ limit: 'minimum', value: d.soc_min_mwh * factor }] : []),
    ...(d.soc_max_mwh !== undefined ? [{ limit: 'maximum', value: d.soc_max_mwh * factor }] : []),
  ]);
  const targets = devices.flatMap((d) =>
    (d.soc_targets ?? [])
      .filter((t) => targetTime(t) !== undefined)
      .map((t) => ({ t: wallClockMs(targetTime(t)!, zone), time: formatTime(targetTime(t)!, zone), value: t.valueMwh * factor })),
  );
  const yTitle = `State of charge (${unit})`;
  return {
    $schema: SCHEMA,
    title: 'State of charge',
    width: 'container',
    height: 200,
    layer: [
      {
        data: { values: rows },
        mark: { type: 'line', strokeWidth: 2, point: { filled: true, size: 20 } },
        encoding: {
          x: timeAxis(zone),
          y: { field: 'value', type: 'quantitative', title: yTitle },
          color: { field: 'series', type: 'nominal', title: null },
          tooltip: [
            { field: 'series', title: 'Device' },
            { field: 'time', title: 'Time' },
            { field: 'value', title: yTitle, format: ',.3~f' },
          ],
        },
      },
      // Layers without data are left out: an empty one makes Vega warn about its extent.
      ...(limits.length
        ? [
            {
              data: { values: limits },
              mark: { type: 'rule', strokeDash: [6, 4], color: '#888' },
              encoding: {
                y: { field: 'value', type: 'quantitative' },
                tooltip: [
                  { field: 'limit', title: 'Limit' },
                  { field: 'value', title: yTitle, format: ',.3~f' },
                ],
              },
            },
          ]
        : []),
      ...(targets.length
        ? [
            {
              data: { values: targets },
              mark: { type: 'point', shape: 'diamond', size: 120, filled: true, color: '#d62728' },
              encoding: {
                x: timeAxis(zone),
                y: { field: 'value', type: 'quantitative' },
                tooltip: [
                  { field: 'time', title: 'Target at' },
                  { field: 'value', title: yTitle, format: ',.3~f' },
                ],
              },
            },
          ]
        : []),
    ],
  };
}
