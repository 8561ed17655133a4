import { IANAZone } from 'luxon';
import { solarAltitudeDeg } from '../worker/src/forecasting/solar.ts';
import { seeded } from './_stats.ts';
import { HOUR } from './_time.ts';

/**
 * Synthetic series for tests of the forecasting mechanics, on a UTC grid (the site in Amsterdam):
 * each is what the name says plus noise, so that no method can be perfect. Skill is measured on
 * real series instead (bench/_realSeries.ts, docs/forecasting.md).
 */
export interface SyntheticSeries {
  name: string;
  unit: string;
  values: number[];
}

const AMSTERDAM = { latitude: 52.37, longitude: 4.9 };

const ZONE = IANAZone.create('Europe/Amsterdam');

/** Hour and weekend on the site's clock, summer time included: people live by the local clock. */
const local = (ms: number) => {
  const d = new Date(ms + ZONE.offset(ms) * 60_000);
  return { hour: d.getUTCHours() + d.getUTCMinutes() / 60, weekend: d.getUTCDay() === 0 || d.getUTCDay() === 6 };
};

const bump = (x: number, centre: number, width: number) => Math.exp(-(((x - centre) / width) ** 2));

/** Household load (kW): a night base, morning and evening peaks, a midday plateau at weekends, noise that lingers. */
export function householdLoad(startMs: number, stepMs: number, count: number, seed = 1): SyntheticSeries {
  const rand = seeded(seed);
  let ar = 0;
  const values = Array.from({ length: count }, (_, i) => {
    const { hour, weekend } = local(startMs + i * stepMs);
    const shape =
      0.25 + 0.6 * bump(hour, 7.5, 1.2) + 1.1 * bump(hour, 19, 2) + (weekend ? 0.5 * bump(hour, 13, 3) : 0.1 * bump(hour, 13, 3));
    ar = 0.7 * ar + 0.12 * (rand() - 0.5);
    return Math.max(0.05, shape + ar + 0.25 * (rand() - 0.5));
  });
  return { name: 'household load', unit: 'kW', values };
}

/** PV production (kW, 5 kWp): the clear-sky shape times a day's cloudiness, with passing clouds. */
export function pvProduction(startMs: number, stepMs: number, count: number, seed = 2): SyntheticSeries {
  const rand = seeded(seed);
  const dayMs = 24 * HOUR;
  let cloudiness = 0.8;
  let day = -1;
  const values = Array.from({ length: count }, (_, i) => {
    const t = startMs + i * stepMs;
    const d = Math.floor(t / dayMs);
    if (d !== day) {
      day = d;
      // Weather lingers a little: the day-to-day correlation of the clearness index is about 0.3
      // in north-west Europe, so a day is kept with probability 0.3 and drawn anew otherwise.
      cloudiness = rand() < 0.3 ? cloudiness : 0.15 + 0.85 * rand();
    }
    const altitude = solarAltitudeDeg(t + stepMs / 2, AMSTERDAM.latitude, AMSTERDAM.longitude);
    const clear = Math.max(0, Math.sin((altitude * Math.PI) / 180));
    return 5 * clear * cloudiness * (0.85 + 0.3 * rand());
  });
  return { name: 'PV production', unit: 'kW', values };
}

/** Day-ahead prices (EUR/MWh): a level that drifts, a daily shape with two peaks, cheaper weekends, noise. */
export function dayAheadPrices(startMs: number, stepMs: number, count: number, seed = 3): SyntheticSeries {
  const rand = seeded(seed);
  let level = 80;
  const values = Array.from({ length: count }, (_, i) => {
    const { hour, weekend } = local(startMs + i * stepMs);
    level += 0.05 * (rand() - 0.5);
    const shape = 25 * bump(hour, 8, 1.5) + 35 * bump(hour, 19, 2) - 20 * bump(hour, 13, 2.5) - (weekend ? 15 : 0);
    return level + shape + 12 * (rand() - 0.5);
  });
  return { name: 'day-ahead prices', unit: 'EUR/MWh', values };
}

export const SITE = { timezone: 'Europe/Amsterdam', country: 'NL', location: AMSTERDAM };
