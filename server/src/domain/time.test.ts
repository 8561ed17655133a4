import { describe, expect, it } from 'vitest';
import { parseAwareDateTime, storedInstantMs } from './time.ts';

/**
 * The forms Python's `datetime.fromisoformat` (3.11) reads, with the instant (epoch milliseconds)
 * and UTC offset (minutes) it reads them as, written down from Python, not from this parser.
 */
const pythonReads: [string, number, number][] = [
  ['2015-01-01T00:00+01', 1420066800000, 60], // FlexMeasures' conftest writes soc_datetime so
  ['2015-01-01T00:00+0100', 1420066800000, 60],
  ['2015-01-01T00:00+01:00', 1420066800000, 60],
  ['2015-01-01T00:00Z', 1420070400000, 0],
  ['2015-01-01T00:00:00-05', 1420088400000, -300],
  ['2015-01-01T12:30:15.5+05:30', 1420095615500, 330],
  ['2015-01-01T12:30:15,25-0930', 1420149615250, -570],
  // Python keeps microseconds (…123.456); an instant here is kept in milliseconds, as beliefs are.
  ['2015-01-01T00:00:00.123456+01:00', 1420066800123, 60],
  ['2015-01-01T00+01', 1420066800000, 60],
  ['2015-01-01T0000+01', 1420066800000, 60],
  ['20150101T000000Z', 1420070400000, 0],
  ['2015-W01-1T00:00+01', 1419807600000, 60],
  ['2015-06-30T23:59:59.999+23:59', 1435622459999, 1439],
  ['2015-01-01t00:00Z', 1420070400000, 0],
];

/** Python reads these with a space for the `T`; so does a stored attribute or a data file here. */
const pythonReadsWithSpace: [string, number, number][] = [
  ['2015-01-01 00:00+01', 1420066800000, 60],
  ['2015-01-01 00:00:00 +01:00', 1420066800000, 60],
  ['2015-01-01 23:45:00Z', 1420155900000, 0],
];

/** Python refuses these. */
const pythonRefuses = [
  '2015-001T00:00+01',
  '2015-01-01T24:00+01',
  '2015-01-01T00:00z',
  '2015-01-01T00:00+1',
  '2015-01-01T00:00+24',
  '2015-02-30T00:00Z',
  '2015-1-1T00:00+01',
  '2015-01-01T00:00:60Z',
  '10:00+01',
  'yesterday',
];

/** Python reads these, FlexMeasures' API fields do not (an offset with seconds, or 60 minutes): refused. */
const stricterThanPython = ['2015-01-01T00:00:00+01:00:30', '2015-01-01T00:00+01:60'];

const read = (text: string, spaceForT = false) => {
  const dt = parseAwareDateTime(text, { spaceForT });
  return typeof dt === 'string' ? dt : [dt.toMillis(), dt.offset];
};

describe('parseAwareDateTime', () => {
  it.each(pythonReads)('reads %s as Python does', (text, ms, offset) => {
    expect(read(text)).toEqual([ms, offset]);
    expect(read(text, true)).toEqual([ms, offset]);
  });

  it.each(pythonReadsWithSpace)('reads %s as Python does where a space may stand for T', (text, ms, offset) => {
    expect(read(text, true)).toEqual([ms, offset]);
    expect(storedInstantMs(text)).toBe(ms);
  });

  it('keeps a space as an unescaped + in API fields, as FlexMeasures does, and not as the T', () => {
    expect(read('2015-01-01T00:00 01:00')).toEqual([1420066800000, 60]);
    expect(read('2015-01-01 00:00+01')).toBe('invalid');
  });

  it.each([...pythonRefuses, ...stricterThanPython])('refuses %s', (text) => {
    expect(read(text)).toBe('invalid');
    expect(read(text, true)).toBe('invalid');
  });

  it('tells a datetime without offset apart, and reads it in a zone when one is given', () => {
    expect(read('2015-01-01T00:00')).toBe('naive');
    expect(storedInstantMs('2015-01-01T00:00')).toBeUndefined();
    const local = parseAwareDateTime('2015-01-01 00:00', { spaceForT: true, naiveZone: 'Europe/Amsterdam' });
    expect(typeof local === 'string' ? local : local.toMillis()).toBe(1420066800000);
  });
});
