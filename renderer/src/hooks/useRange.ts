import { useSearchParams } from 'react-router';
import { rangeOf, today, type RangeSize, type TimeRange } from '../lib/time.ts';

const sizes: RangeSize[] = ['day', 'week', 'month'];

/**
 * The chart window of a page, kept in the address (`?range=week&date=2025-03-01`) so that a
 * link or a reload shows the same window.
 * @param zone the site's time zone.
 * @param defaultSize the window length when the address names none.
 * @returns the window, its length and date, and a setter.
 */
export function useRange(zone: string, defaultSize: RangeSize = 'week') {
  const [params, setParams] = useSearchParams();
  const requested = params.get('range') as RangeSize | null;
  const size = requested && sizes.includes(requested) ? requested : defaultSize;
  const anchor = params.get('date') ?? today(zone);
  const range: TimeRange = rangeOf(anchor, size, zone);
  const setRange = (next: { size: RangeSize; anchor: string }) =>
    setParams(
      (p) => {
        p.set('range', next.size);
        p.set('date', next.anchor);
        return p;
      },
      { replace: true },
    );
  return { size, anchor, range, setRange };
}
