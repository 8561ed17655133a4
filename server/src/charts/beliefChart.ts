import { DateTime } from 'luxon';
import type { ChartRecord } from '../contracts/responses.ts';

/**
 * Vega-Lite specifications of belief time series, as `GET /assets/<id>/chart/` and
 * `GET /sensors/<id>/chart/` return them and the web UI draws them. Pure: the routes load the
 * beliefs and pass them in as chart records.
 */

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** One belief as a chart record (`chart_data/` answers with a list of these), as the contract says. */
export type { ChartRecord };

/** A sensor as the chart needs it. */
export interface ChartSensor {
  id: number;
  name: string;
  unit: string;
  /** Instantaneous sensors (resolution zero) are drawn as straight lines, others as steps. */
  instantaneous: boolean;
  /** Power sensors: which direction their positive values are, named on the axis (schedules show consumption positive). */
  positive?: 'consumption' | 'production';
}

/** One plot of the chart: the sensors drawn in it (an entry of `sensors_to_show`). */
export interface ChartRow {
  title: string;
  sensors: ChartSensor[];
}

export interface ChartOptions {
  /** IANA zone the time axis is labelled in. */
  zone: string;
  /** Pixels, or `container` to fill the element the chart is drawn in. */
  width: number | 'container';
  height: number;
  datasetName: string;
  /** The records to embed in the spec; left out, the spec names a dataset to be filled by the client. */
  records?: ChartRecord[];
  title?: string;
  /** The event window as wall-clock milliseconds (see `wallClockMs`), so that the axis spans it even where data is missing. */
  domain?: [number, number];
}

/**
 * The wall-clock time of an instant in a zone, encoded as UTC epoch milliseconds.
 * @param ms epoch milliseconds.
 * @param zone IANA time zone.
 * @returns shifted milliseconds, for plotting only.
 */
export function wallClockMs(ms: number, zone: string): number {
  return ms + DateTime.fromMillis(ms, { zone }).offset * 60_000;
}

/**
 * An ISO 8601 text of an instant in a zone, without milliseconds.
 * @param ms epoch milliseconds.
 * @param zone IANA time zone.
 * @returns e.g. `2025-03-01T13:00:00+01:00`.
 */
export function isoInZone(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString();
}

const unitsOf = (sensors: ChartSensor[]) =>
  [...new Set(sensors.map((s) => (s.positive ? `${s.unit}, ${s.positive} positive` : s.unit)))].join('; ') || 'value';

/**
 * One axis, one sign convention: where a plot mixes power sensors that store opposite signs, the
 * production-positive ones are drawn negated, so that the axis reads consumption positive.
 * @returns the ids to negate (none when the plot's power sensors agree) and the sensors as drawn.
 */
function oneConvention(row: ChartRow): { negated: number[]; drawn: ChartSensor[] } {
  const mixed = new Set(row.sensors.flatMap((s) => (s.positive ? [s.positive] : []))).size > 1;
  if (!mixed) return { negated: [], drawn: row.sensors };
  return {
    negated: row.sensors.filter((s) => s.positive === 'production').map((s) => s.id),
    drawn: row.sensors.map((s) => (s.positive ? { ...s, positive: 'consumption' as const } : s)),
  };
}

function plot(row: ChartRow, options: ChartOptions) {
  const many = row.sensors.length > 1;
  const { negated, drawn } = oneConvention(row);
  // The window goes in as an expression of a plain array: a numeric `domain` on a temporal field
  // compiles to `datetime(ms)` expressions, which Vega's expression interpreter (the UI's
  // content-security policy allows no eval) cannot evaluate, and every mark then lands at x = 0.
  // Unlike `domainRaw`, it spares the scale an extent of the data (a warning when a plot is empty).
  // A `utc` scale formats its axis in UTC already; `formatType: 'utc'` would only be dropped with a warning.
  const time = {
    field: 'local_time',
    type: 'temporal',
    scale: { type: 'utc', ...(options.domain ? { domain: { expr: JSON.stringify(options.domain) } } : {}) },
    axis: { title: `Time (${options.zone})`, labelOverlap: true, grid: true },
  };
  // A plot without data gets a value axis of its own, instead of an empty extent (Vega warns about that).
  const empty = options.records !== undefined && !options.records.some((r) => row.sensors.some((s) => s.id === r.sensor_id));
  const field = negated.length ? 'drawn_value' : 'event_value';
  const value = {
    field,
    type: 'quantitative',
    title: unitsOf(drawn),
    ...(empty && { scale: { domain: [0, 1] } }),
  };
  // Several sensors in one plot are told apart by colour; one sensor's sources are.
  const series = { field: 'series', type: 'nominal', title: many ? 'Sensor · source' : 'Source', legend: { orient: 'bottom' } };
  return {
    title: row.title,
    width: options.width,
    height: options.height,
    transform: [
      { filter: { field: 'sensor_id', oneOf: row.sensors.map((s) => s.id) } },
      { calculate: many ? "datum.sensor + ' · ' + datum.source" : 'datum.source', as: 'series' },
      ...(negated.length
        ? [{ calculate: `indexof(${JSON.stringify(negated)}, datum.sensor_id) >= 0 ? -datum.event_value : datum.event_value`, as: field }]
        : []),
    ],
    layer: [
      {
        mark: {
          type: 'line',
          interpolate: row.sensors.every((s) => s.instantaneous) ? 'linear' : 'step-after',
          strokeWidth: 2,
          clip: true,
        },
        encoding: { x: time, y: value, color: series },
      },
      {
        // Points carry the tooltips (and, in SVG, an aria label per value).
        mark: { type: 'point', filled: true, size: 36, opacity: 0, clip: true },
        encoding: {
          x: time,
          y: value,
          color: series,
          tooltip: [
            { field: 'sensor', title: 'Sensor' },
            // Wall-clock time in the site's zone, encoded as UTC (see `wallClockMs`): read back through a UTC time unit.
            { field: 'local_time', type: 'temporal', title: 'Time', timeUnit: 'utcyearmonthdatehoursminutes', format: '%Y-%m-%d %H:%M' },
            { field, type: 'quantitative', title: negated.length ? 'Value (consumption positive)' : 'Value', format: ',.6~g' },
            { field: 'unit', title: 'Unit' },
            { field: 'source', title: 'Source' },
            { field: 'belief_time', title: 'Known at' },
          ],
        },
      },
    ],
  };
}

/**
 * A chart of beliefs: one plot per row, stacked, sharing the time axis.
 * @param rows the plots and their sensors.
 * @param options size, time zone, dataset name and optionally the data.
 * @returns the Vega-Lite specification.
 */
export function beliefChartSpec(rows: ChartRow[], options: ChartOptions): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    description: 'Sensor data over time, one plot per group of sensors; times in ' + options.zone,
    ...(options.title ? { title: options.title } : {}),
    data: { name: options.datasetName },
    ...(options.records ? { datasets: { [options.datasetName]: options.records } } : {}),
    vconcat: rows.map((row) => plot(row, options)),
    resolve: { scale: { x: 'shared' } },
    config: { legend: { orient: 'bottom' } },
  };
}
