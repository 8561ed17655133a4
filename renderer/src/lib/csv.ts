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
 * Checks the rows of a sensor-data CSV (event start, value, optional belief time) the way the upload endpoint
 * reads them, so that mistakes show per row before anything is sent.
 * @param rows the parsed rows.
 * @returns whether the first row is a header, and every data row with its problem, if any.
 */
export function checkDataRows(rows: string[][]): { header: string[] | null; rows: CsvRow[] } {
  const looksLikeHeader = rows.length > 0 && !isDateTime((rows[0][0] ?? '').trim());
  const header = looksLikeHeader ? rows[0] : null;
  const offset = looksLikeHeader ? 1 : 0;
  return {
    header,
    rows: rows.slice(offset).map((cells, i) => {
      const [start = '', value = '', beliefTime = ''] = cells.map((c) => c.trim());
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

const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

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
