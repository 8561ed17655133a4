import { describe, expect, it } from 'vitest';
import { stepCalendar } from '../../worker/src/forecasting/calendar.ts';

/*
 * Expected values are published facts or the platform's time zone data, not the code under test:
 * - Europe/Berlin moves to CEST (UTC+2) on 29 March 2026 at 01:00 UTC and back to CET (UTC+1) on
 *   25 October 2026 at 01:00 UTC; America/New_York to EDT (UTC−4) on 8 March 2026 at 07:00 UTC.
 * - 29 March 2026 is a Sunday; 6 April 2026 is Easter Monday, a public holiday in Germany.
 */
const STEP = 900_000;

/** Local minute of the day and weekday (0 Monday) of an instant in a zone, by Intl. */
function local(ms: number, timezone: string): { minute: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
    hourCycle: 'h23',
  })
    .formatToParts(new Date(ms))
    .reduce<Record<string, string>>((o, p) => ({ ...o, [p.type]: p.value }), {});
  return {
    minute: Number(parts.hour) * 60 + Number(parts.minute),
    weekday: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.weekday),
  };
}

describe('step calendar', () => {
  it('gives each step its local time and weekday across offset changes, whatever grid in the zone came before', () => {
    const grids = [
      { zone: 'Europe/Berlin', from: Date.parse('2026-03-27T00:00Z') },
      { zone: 'Europe/Berlin', from: Date.parse('2026-03-27T01:00Z') }, // an hour on: the hourly forecast
      { zone: 'Europe/Berlin', from: Date.parse('2026-03-26T22:07Z') }, // off the hour
      { zone: 'Europe/Berlin', from: Date.parse('2026-10-23T00:00Z') },
      { zone: 'America/New_York', from: Date.parse('2026-03-06T00:00Z') },
    ];
    for (const g of grids) {
      const count = 5 * 96;
      const calendar = stepCalendar(g.from, STEP, count, g.zone, null);
      for (let i = 0; i < count; i++) {
        const expected = local(g.from + i * STEP, g.zone);
        expect([calendar.minuteOfDay[i], calendar.dayType[i]]).toEqual([expected.minute, expected.weekday]);
      }
    }
    const berlin = stepCalendar(Date.parse('2026-03-29T00:45Z'), STEP, 2, 'Europe/Berlin', null);
    expect([...berlin.minuteOfDay]).toEqual([105, 180]); // 01:45 CET, then 03:00 CEST
    expect([...berlin.dayType]).toEqual([6, 6]); // Sunday
  });

  it('counts public holidays as Sundays', () => {
    const easterMonday = Date.parse('2026-04-05T22:00Z'); // 00:00 CEST
    const calendar = stepCalendar(easterMonday, STEP, 2 * 96, 'Europe/Berlin', 'DE');
    expect(calendar.dayType[0]).toBe(6);
    expect(calendar.dayType[95]).toBe(6);
    expect(calendar.dayType[96]).toBe(1); // Tuesday
    expect(stepCalendar(easterMonday, STEP, 1, 'Europe/Berlin', null).dayType[0]).toBe(0); // Monday without holidays
  });
});
