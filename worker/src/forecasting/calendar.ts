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
 * per UTC hour (zones change offset on hour boundaries at most), and kept for the next forecast
 * (see `zoneOffsets`).
 * @param country ISO 3166 code whose public holidays count as Sundays, or null for none.
 */
export function stepCalendar(startMs: number, stepMs: number, count: number, timezone: string, country: string | null): StepCalendar {
  const offsets = zoneOffsets(timezone);
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
      offsetMs = offsets(utcHour);
    }
    const local = t + offsetMs;
    const localDay = Math.floor(local / DAY_MS);
    minuteOfDay[i] = Math.floor((local - localDay * DAY_MS) / 60_000);
    // 1970-01-01 was a Thursday (3 when Monday is 0).
    dayType[i] = holidays.has(localDay) ? 6 : (((localDay + 3) % 7) + 7) % 7;
  }
  return { minuteOfDay, dayType };
}

/** Offsets (ms) by UTC hour, per zone, for as long as the thread lives; one map is at most MAX_CACHED_HOURS long. */
const cachedOffsets = new Map<string, Map<number, number>>();
/** About 11 years of hours: the grids of forecasts reach back months, not years. */
const MAX_CACHED_HOURS = 100_000;

/**
 * @returns the zone's offset from UTC, ms, during a UTC hour (0 for a zone luxon does not know).
 * The lookup (luxon formats a date in the zone and reads it back) was a third of a forecast's
 * time, and forecasts an hour apart look up the same hours but one: the offset of an hour never
 * changes, so it is kept. The zone's rules are those of the thread's tz data, which do not change while it runs.
 */
function zoneOffsets(timezone: string): (utcHour: number) => number {
  const zone = IANAZone.create(timezone);
  let cached = cachedOffsets.get(timezone);
  if (!cached || cached.size > MAX_CACHED_HOURS) cachedOffsets.set(timezone, (cached = new Map()));
  const known = cached;
  return (utcHour) => {
    let offset = known.get(utcHour);
    if (offset === undefined) {
      offset = zone.isValid ? zone.offset(utcHour * HOUR_MS) * 60_000 : 0;
      known.set(utcHour, offset);
    }
    return offset;
  };
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
