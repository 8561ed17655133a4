import { describe, expect, it } from 'vitest';
import { weekdays } from '../contracts/devices.ts';
import { shareOf, socTargetsWithin } from './recurringTargets.ts';

const amsterdam = 'Europe/Amsterdam';
const at = (iso: string) => Date.parse(iso);

describe('recurring SoC targets within a run', () => {
  it('keep the local time on each day, across the spring DST change too', () => {
    // Friday 26 March 2027 12:00 UTC to Tuesday 30 March 12:00 UTC; the clocks go forward on Sunday 28 March.
    const found = socTargetsWithin(
      [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', timezone: amsterdam, value: '80%' }],
      { capacity: '60 kWh', socUnit: 'kWh' },
      at('2027-03-26T12:00:00Z'),
      at('2027-03-30T12:00:00Z'),
    );
    // Friday 07:00 is before the start; Monday and Tuesday 07:00 are in summer time (UTC+2).
    expect(found).toEqual([
      { value: '48 kWh', datetime: '2027-03-29T07:00:00+02:00' },
      { value: '48 kWh', datetime: '2027-03-30T07:00:00+02:00' },
    ]);
  });

  it('move a time the spring change skips to the same time after it, and keep bare numbers in the SoC unit', () => {
    const found = socTargetsWithin(
      [{ days: ['sun'], time: '02:30', timezone: amsterdam, value: '50%' }],
      { capacity: 0.06, socUnit: 'MWh' },
      at('2027-03-27T12:00:00Z'),
      at('2027-03-29T12:00:00Z'),
    );
    expect(found).toEqual([{ value: 0.03, datetime: '2027-03-28T03:30:00+02:00' }]);
  });

  it('take a time the autumn change repeats at its first occurrence, in summer time', () => {
    // The clocks go back from 03:00 summer time to 02:00 on Sunday 31 October 2027.
    const found = socTargetsWithin(
      [{ days: ['sun'], time: '02:30', timezone: amsterdam, value: '50%' }],
      { capacity: 0.06, socUnit: 'MWh' },
      at('2027-10-30T12:00:00Z'),
      at('2027-11-01T12:00:00Z'),
    );
    expect(found).toEqual([{ value: 0.03, datetime: '2027-10-31T02:30:00+02:00' }]);
  });

  it('pass energies through, in time order over several targets, and leave out a target at the start itself', () => {
    const found = socTargetsWithin(
      [
        { days: ['sat'], time: '09:00', timezone: 'UTC', value: '20 kWh' },
        { days: ['sat'], time: '08:00', timezone: 'UTC', value: '10 kWh' },
      ],
      { capacity: undefined, socUnit: 'kWh' },
      // Saturday 1 May 2027 08:00 to Saturday 8 May 10:00.
      at('2027-05-01T08:00:00Z'),
      at('2027-05-08T10:00:00Z'),
    );
    expect(found).toEqual([
      { value: '20 kWh', datetime: '2027-05-01T09:00:00Z' },
      { value: '10 kWh', datetime: '2027-05-08T08:00:00Z' },
      { value: '20 kWh', datetime: '2027-05-08T09:00:00Z' },
    ]);
  });

  it('cannot take a percentage without a capacity', () => {
    const found = socTargetsWithin(
      [{ days: ['mon'], time: '07:00', timezone: 'UTC', value: '80%' }],
      { capacity: undefined, socUnit: 'kWh' },
      0,
      86_400_000,
    );
    expect(found).toBe('The recurring target "80% by 07:00" needs the device\'s capacity (soc-max in its stored flex-model).');
  });

  it('scale a quantity in its own unit', () => {
    expect(shareOf('60 kWh', 80)).toBe('48 kWh');
    expect(shareOf('0.06 MWh', 80)).toBe('0.048 MWh');
    expect(shareOf(0.06, 80)).toBe(0.048);
  });
  it('stop at a bound instead of expanding without end', () => {
    // Ten targets every day for two years: 7,300 occurrences, past the bound of 5,000.
    const targets = Array.from({ length: 10 }, (_, i) => ({
      days: [...weekdays],
      time: `0${i}:00`,
      timezone: 'UTC',
      value: '10 kWh',
    }));
    const found = socTargetsWithin(targets, { capacity: '60 kWh', socUnit: 'kWh' }, at('2027-01-01T00:00:00Z'), at('2029-01-01T00:00:00Z'));
    expect(found).toBe('The recurring targets occur more than 5000 times in this window.');
  });
});
