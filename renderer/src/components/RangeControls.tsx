import type { RangeSize } from '../lib/time.ts';
import { shiftDate, today } from '../lib/time.ts';

interface Props {
  size: RangeSize;
  anchor: string;
  zone: string;
  onChange: (next: { size: RangeSize; anchor: string }) => void;
}

/** Day, week or month, previous and next, and a calendar to jump to any date. */
export function RangeControls({ size, anchor, zone, onChange }: Props) {
  return (
    <div className="range-controls" role="group" aria-label="Time range">
      <div className="segmented" role="radiogroup" aria-label="Range length">
        {(['day', 'week', 'month'] as const).map((s) => (
          <label key={s} className={s === size ? 'active' : ''}>
            <input type="radio" name="range-size" value={s} checked={s === size} onChange={() => onChange({ size: s, anchor })} />
            {s[0].toUpperCase() + s.slice(1)}
          </label>
        ))}
      </div>
      <button type="button" onClick={() => onChange({ size, anchor: shiftDate(anchor, size, -1) })} aria-label={`Previous ${size}`}>
        ‹ Previous
      </button>
      <input type="date" aria-label="Date" value={anchor} onChange={(e) => e.target.value && onChange({ size, anchor: e.target.value })} />
      <button type="button" onClick={() => onChange({ size, anchor: shiftDate(anchor, size, 1) })} aria-label={`Next ${size}`}>
        Next ›
      </button>
      <button type="button" onClick={() => onChange({ size, anchor: today(zone) })}>
        Today
      </button>
      <span className="zone">Times in {zone}</span>
    </div>
  );
}
