import { DateTime } from 'luxon';

/**
 * Splits CSV text into rows of cells: quoted cells may hold the delimiter, quotes ("") and
 * line breaks. The delimiter is whichever of `,`, `;` and tab the first line has most of.
 * @param text the file's text.
 * @returns the rows; blank lines are dropped.
 */
export function parseCsv(text: string): string[][] {
  const lineEnd = text.indexOf('\n');
  const firstLine = lineEnd < 0 ? text : text.slice(0, lineEnd);
  const count = (c: string) => firstLine.split(c).length - 1;
  const delimiter = [',', ';', '\t'].reduce((best, c) => (count(c) > count(best) ? c : best), ',');
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((v) => v.trim() !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  row.push(cell);
  if (row.some((v) => v.trim() !== '')) rows.push(row);
  return rows;
}

/** One data row of an upload, as the preview shows it. */
export interface CsvRow {
  /** Line number in the file, 1-based, for messages. */
  line: number;
  start: string;
  value: string;
  beliefTime: string;
  error?: string;
}

/** Whether a cell is a datetime as the upload reads it: ISO 8601 or `YYYY-MM-DD HH:MM[:SS]`, offset optional. */
const isDateTime = (v: string) => DateTime.fromISO(v).isValid || DateTime.fromSQL(v).isValid;

/**
 * How a spreadsheet wrote its numbers and dates: European files use a decimal comma (with `;`
 * between cells) and day-first dates (31.12.2026 13:00, 31/12/2026 13:00); American ones
 * month-first. The upload endpoint reads ISO dates and decimal points, so such rows are rewritten.
 */
export interface CsvFormat {
  decimalComma: boolean;
  dateOrder: 'iso' | 'day-first' | 'month-first';
}

const localDate = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Guesses the format from the data rows: a decimal comma where values such as `12,5` occur and no
 * value has a point; day-first dates where a first part exceeds 12, month-first where a second
 * part does, else day-first for `.` and `-`, month-first for `/` (the operator can change it).
 */
export function detectFormat(rows: string[][]): CsvFormat {
  const data = rows.filter((r) => r.length >= 2);
  const values = data.map((r) => r[1].trim());
  const decimalComma = values.some((v) => /^-?\d+,\d+$/.test(v)) && !values.some((v) => /^-?\d+\.\d+$/.test(v));
  const dates = data.map((r) => localDate.exec(r[0].trim())).filter((m): m is RegExpExecArray => m !== null);
  if (!dates.length) return { decimalComma, dateOrder: 'iso' };
  if (dates.some((m) => Number(m[1]) > 12)) return { decimalComma, dateOrder: 'day-first' };
  if (dates.some((m) => Number(m[2]) > 12)) return { decimalComma, dateOrder: 'month-first' };
  return { decimalComma, dateOrder: /\//.test(data[0][0]) ? 'month-first' : 'day-first' };
}

/** A date cell in ISO 8601 (no offset when it had none: the upload reads it in the sensor's zone). */
function isoDate(v: string, order: CsvFormat['dateOrder']): string {
  const m = order === 'iso' ? null : localDate.exec(v);
  if (!m) return v;
  const [day, month] = order === 'day-first' ? [m[1], m[2]] : [m[2], m[1]];
  const pad = (x: string | undefined) => (x ?? '0').padStart(2, '0');
  return `${m[3]}-${pad(month)}-${pad(day)}T${pad(m[4])}:${pad(m[5])}:${pad(m[6])}`;
}

/** A value cell with a decimal point. */
const pointDecimal = (v: string, format: CsvFormat) => (format.decimalComma ? v.replace(/^(-?\d+),(\d+)$/, '$1.$2') : v);

/**
 * Checks the rows of a sensor-data CSV (event start, value, optional belief time) the way the upload endpoint
 * reads them, so that mistakes show per row before anything is sent.
 * @param rows the parsed rows.
 * @param format how its numbers and dates are written; rows are shown and sent rewritten to ISO dates and decimal points.
 * @returns whether the first row is a header, and every data row with its problem, if any.
 */
export function checkDataRows(
  rows: string[][],
  format: CsvFormat = { decimalComma: false, dateOrder: 'iso' },
): { header: string[] | null; rows: CsvRow[] } {
  const looksLikeHeader = rows.length > 0 && !isDateTime(isoDate((rows[0][0] ?? '').trim(), format.dateOrder));
  const header = looksLikeHeader ? rows[0] : null;
  const offset = looksLikeHeader ? 1 : 0;
  return {
    header,
    rows: rows.slice(offset).map((cells, i) => {
      const [rawStart = '', rawValue = '', rawBelief = ''] = cells.map((c) => c.trim());
      const start = isoDate(rawStart, format.dateOrder);
      const value = pointDecimal(rawValue, format);
      const beliefTime = rawBelief && isoDate(rawBelief, format.dateOrder);
      const line = i + offset + 1;
      let error: string | undefined;
      if (cells.length < 2) error = 'Needs two columns: the event start and the value.';
      else if (!isDateTime(start)) error = `"${start}" is not a date and time.`;
      else if (value !== '' && !isNumeric(value)) error = `"${value}" is not a number.`;
      else if (beliefTime !== '' && !isDateTime(beliefTime)) error = `"${beliefTime}" is not a date and time.`;
      return { line, start, value, beliefTime, error };
    }),
  };
}

const isNumeric = (v: string) => v.trim() !== '' && Number.isFinite(Number(v.trim()));

/**
 * Quotes a cell holding a quote, a line break or any delimiter a spreadsheet may split on: Dutch and
 * German locales split on `;` and tabs, where `x;=cmd()` unquoted would run `=cmd()` as a formula.
 */
const quote = (v: string) => (/[",;\t\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * The checked rows as the upload endpoint reads them: ISO dates and decimal points.
 * @returns CSV text with the header `event_start,event_value[,belief_time]`.
 */
export function normalizedCsv(rows: CsvRow[]): string {
  const withBelief = rows.some((r) => r.beliefTime !== '');
  const header = withBelief ? ['event_start', 'event_value', 'belief_time'] : ['event_start', 'event_value'];
  return toCsv([header, ...rows.map((r) => (withBelief ? [r.start, r.value, r.beliefTime] : [r.start, r.value]))]);
}

/**
 * Text that a spreadsheet would run as a formula (names of sensors and sources are anyone's
 * words) starts with an apostrophe instead, as OWASP advises against CSV injection; numbers stay as they are.
 */
const inert = (v: string) => (/^[=+\-@\t\r]/.test(v) && !isNumeric(v) ? `'${v}` : v);

/**
 * Writes rows as CSV text (RFC 4180), with formula-like text made inert.
 * @param rows the header and the data rows.
 * @returns the text, lines ended by CRLF.
 */
export function toCsv(rows: (string | number | null)[][]): string {
  return (
    rows.map((r) => r.map((v) => quote(v === null ? '' : typeof v === 'number' ? String(v) : inert(v))).join(',')).join('\r\n') + '\r\n'
  );
}
