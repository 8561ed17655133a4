import Holidays from 'date-holidays';
import { IANAZone } from 'luxon';

/** The site-clock facts of one time step that calendar features are made of. */
export interface StepCalendar {
  /** Local minute of the day at the step's start, 0–1439. */
  minuteOfDay: Int16Array;
  /** Local weekday, 0 = Monday … 6 = Sunday; public holidays count as Sunday. */
  dayType: Int8Array;
}

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Local time of day and day type for `count` steps from `startMs`. The zone's offset is looked up once
 * per UTC hour (zones change offset on hour boundaries at most), so a year at 15 minutes costs
 * a few thousand lookups, not tens of thousands.
 * @param country ISO 3166 code whose public holidays count as Sundays, or null for none.
 */
export function stepCalendar(startMs: number, stepMs: number, count: number, timezone: string, country: string | null): StepCalendar {
  const zone = IANAZone.create(timezone);
  const zoneOk = zone.isValid;
  const holidays = country ? publicHolidays(country, startMs, startMs + count * stepMs) : new Set<number>();
  const minuteOfDay = new Int16Array(count);
  const dayType = new Int8Array(count);
  let cachedHour = Number.NaN;
  let offsetMs = 0;
  for (let i = 0; i < count; i++) {
    const t = startMs + i * stepMs;
    const utcHour = Math.floor(t / HOUR_MS);
    if (utcHour !== cachedHour) {
      cachedHour = utcHour;
      offsetMs = zoneOk ? zone.offset(t) * 60_000 : 0;
    }
    const local = t + offsetMs;
    const localDay = Math.floor(local / DAY_MS);
    minuteOfDay[i] = Math.floor((local - localDay * DAY_MS) / 60_000);
    // 1970-01-01 was a Thursday (3 when Monday is 0).
    dayType[i] = holidays.has(localDay) ? 6 : (((localDay + 3) % 7) + 7) % 7;
  }
  return { minuteOfDay, dayType };
}

/** Local day numbers (days since 1970-01-01 on the local calendar) of the country's public holidays. */
function publicHolidays(country: string, fromMs: number, toMs: number): Set<number> {
  const days = new Set<number>();
  const hd = new Holidays(country);
  for (let year = new Date(fromMs).getUTCFullYear(); year <= new Date(toMs).getUTCFullYear() + 1; year++) {
    for (const h of hd.getHolidays(year) || []) {
      if (h.type !== 'public') continue;
      // `date` is the local calendar date, e.g. "2026-04-05 00:00:00".
      const [y, m, d] = h.date.slice(0, 10).split('-').map(Number);
      days.add(Math.floor(Date.UTC(y, m - 1, d) / DAY_MS));
    }
  }
  return days;
}
