import { parse } from 'csv-parse/sync';
import { parseAwareDateTime } from './time.ts';
import { uploadEvents, type BeliefTiming, type Problems, type SensorShape, type UploadEvent } from './sensorData.ts';

/** One line of a data file: an event start, its value (null when empty) and maybe a belief time. */
export interface CsvRow {
  startMs: number;
  value: number | null;
  beliefTimeMs?: number;
}

const number = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Reads a datetime cell; one without an offset is local time in `timezone`.
 * @returns epoch milliseconds, or undefined when the text is not a datetime.
 */
function readTime(text: string, timezone: string): number | undefined {
  const dt = parseAwareDateTime(text, { spaceForT: true, naiveZone: timezone });
  return typeof dt === 'string' ? undefined : dt.toMillis();
}

/**
 * Parses a data file: columns event start, value and optionally belief time, separated by
 * commas, semicolons or tabs, with or without a header line.
 * @param text the file's text.
 * @param timezone the zone of datetimes written without an offset (the sensor's).
 * @returns the rows, or what is wrong with the file.
 */
export function parseBeliefsCsv(text: string, timezone: string): { rows: CsvRow[] } | { error: string } {
  let records: string[][];
  try {
    records = parse(text, { delimiter: [',', ';', '\t'], skip_empty_lines: true, trim: true, relax_column_count: true, bom: true });
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  const rows: CsvRow[] = [];
  for (const [i, record] of records.entries()) {
    const line = i + 1;
    const [startText = '', valueText = '', beliefText = ''] = record;
    const startMs = readTime(startText, timezone);
    if (startMs === undefined) {
      if (i === 0) continue; // a header line
      return { error: `line ${line}: '${startText}' is not a datetime.` };
    }
    if (valueText !== '' && !number.test(valueText)) return { error: `line ${line}: '${valueText}' is not a number.` };
    const row: CsvRow = { startMs, value: valueText === '' ? null : Number(valueText) };
    if (beliefText !== '') {
      const beliefTimeMs = readTime(beliefText, timezone);
      if (beliefTimeMs === undefined) return { error: `line ${line}: '${beliefText}' is not a datetime.` };
      row.beliefTimeMs = beliefTimeMs;
    }
    rows.push(row);
  }
  if (!rows.length) return { error: 'no data lines.' };
  return { rows };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Turns the rows of a data file into events of the sensor. The data's spacing is the largest
 * step that fits every gap between event starts; it must be a multiple of the sensor's
 * resolution, as for JSON uploads.
 * @returns the events, or the problems.
 */
export function csvEvents(
  sensor: SensorShape,
  rows: readonly CsvRow[],
  unit: string,
  timing: BeliefTiming,
): { events: UploadEvent[] } | { problems: Problems } {
  const starts = [...new Set(rows.map((r) => r.startMs))].sort((a, b) => a - b);
  let frequencyMs = 0;
  for (let i = 1; i < starts.length; i++) frequencyMs = gcd(frequencyMs, starts[i] - starts[i - 1]);
  if (!frequencyMs) frequencyMs = sensor.event_resolution_ms;
  const seen = new Set<string>();
  for (const r of rows) {
    const key = `${r.startMs}/${r.beliefTimeMs ?? ''}`;
    if (seen.has(key)) {
      return { problems: { _schema: [`The event at ${new Date(r.startMs).toISOString()} is listed twice with the same belief time.`] } };
    }
    seen.add(key);
  }
  const points = rows.flatMap((r) => (r.value === null ? [] : [{ startMs: r.startMs, value: r.value, beliefTimeMs: r.beliefTimeMs }]));
  return uploadEvents(sensor, { points, frequencyMs, unit, timing });
}
