import { describe, expect, it } from 'vitest';
import { checkDataRows, detectFormat, normalizedCsv, parseCsv, toCsv } from '../../renderer/src/lib/csv.ts';

describe('CSV in the UI', () => {
  it('reads quoted cells, CRLF lines and the delimiter the file uses', () => {
    expect(parseCsv('a,"b, c","say ""hi"""\r\n1,2,3\r\n\r\n')).toEqual([
      ['a', 'b, c', 'say "hi"'],
      ['1', '2', '3'],
    ]);
    expect(parseCsv('x;y\n2025-01-01 00:00;1,5\n')).toEqual([
      ['x', 'y'],
      ['2025-01-01 00:00', '1,5'],
    ]);
    expect(parseCsv('x\ty\n1\t2')).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
  });

  it('checks upload rows as the server reads them and names each problem by line', () => {
    const checked = checkDataRows(
      parseCsv(
        'event_start,event_value\n2025-03-01T00:00:00+01:00,20\n2025-03-01 01:00,\nyesterday,22\n2025-03-01T03:00,abc\n2025-03-01T04:00,1,soon\n2025-03-01T05:00\n',
      ),
    );
    expect(checked.header).toEqual(['event_start', 'event_value']);
    expect(checked.rows.map((r) => [r.line, r.error ?? null])).toEqual([
      [2, null],
      [3, null],
      [4, '"yesterday" is not a date and time.'],
      [5, '"abc" is not a number.'],
      [6, '"soon" is not a date and time.'],
      [7, 'Needs two columns: the event start and the value.'],
    ]);
    expect(checkDataRows(parseCsv('2025-03-01T00:00Z,1\n')).header).toBeNull();
  });

  it('writes CSV that reads back the same', () => {
    const rows = [
      ['event_start', 'source'],
      ['2025-03-01T00:00:00+01:00', 'a "quoted", name'],
    ];
    expect(parseCsv(toCsv(rows))).toEqual(rows);
  });

  it('quotes cells with a semicolon or a tab, so that a spreadsheet splitting on them runs no formula (issue 28)', () => {
    const rows = [
      ['source', 'value'],
      ['meter;=HYPERLINK("http://evil.example","x")', 1],
      ['pv\t+cmd', 2],
    ];
    const csv = toCsv(rows);
    expect(csv).toBe('source,value\r\n"meter;=HYPERLINK(""http://evil.example"",""x"")",1\r\n"pv\t+cmd",2\r\n');
    // Read as a Dutch or German spreadsheet reads it (split on `;`, or on tabs): every cell stays whole.
    for (const delimiter of [';', '\t']) {
      const cells = parseCsv(`${delimiter}\n${csv}`).slice(1).flat();
      expect(cells.filter((c) => /^[=+\-@]/.test(c))).toEqual([]);
    }
    expect(parseCsv(csv)).toEqual(rows.map((r) => r.map(String)));
  });

  it('makes text that a spreadsheet would run as a formula inert, leaving numbers alone', () => {
    const csv = toCsv([
      ['source', 'value'],
      ['=HYPERLINK("http://evil.example","x")', -5],
      ['@SUM(1)', '-2.5'],
      ['+cmd', '-x'],
    ]);
    expect(parseCsv(csv)).toEqual([
      ['source', 'value'],
      [`'=HYPERLINK("http://evil.example","x")`, '-5'],
      [`'@SUM(1)`, '-2.5'],
      [`'+cmd`, `'-x`],
    ]);
  });
});

describe('CSV formats', () => {
  it('detects decimal commas and day-first dates, and rewrites the rows to ISO dates and decimal points', () => {
    const rows = parseCsv('Zeit;Wert\n31.12.2026 23:00;12,5\n01.01.2027 00:00;-3\n');
    const format = detectFormat(rows);
    expect(format).toEqual({ decimalComma: true, dateOrder: 'day-first' });
    const checked = checkDataRows(rows, format);
    expect(checked.header).toEqual(['Zeit', 'Wert']);
    expect(checked.rows.map((r) => [r.start, r.value, r.error])).toEqual([
      ['2026-12-31T23:00:00', '12.5', undefined],
      ['2027-01-01T00:00:00', '-3', undefined],
    ]);
    expect(normalizedCsv(checked.rows)).toBe('event_start,event_value\r\n2026-12-31T23:00:00,12.5\r\n2027-01-01T00:00:00,-3\r\n');
  });

  it('reads month-first dates where a second part exceeds 12, and leaves ISO files alone', () => {
    expect(detectFormat(parseCsv('a,b\n12/31/2026 13:00,1.5\n'))).toEqual({ decimalComma: false, dateOrder: 'month-first' });
    expect(detectFormat(parseCsv('a,b\n2026-12-31T13:00:00+01:00,1.5\n'))).toEqual({ decimalComma: false, dateOrder: 'iso' });
  });
});
