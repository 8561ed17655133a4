import { DateTime } from 'luxon';
import { formatMoney } from '../../lib/money.ts';

interface DayBar {
  period: string;
  planned_savings: number;
  realised_savings: number | null;
  steps: number;
  past_steps: number;
  fallback_steps: number;
}

const WIDTH = 600;
const HEIGHT = 140;
const AXIS = 18;

/**
 * The planned savings of each day as bars above (saves) or below (loses) a zero line, with the
 * realised savings as a narrow dark bar inside where measured; days still ahead are drawn light
 * and days with fallback steps in the warning colour. Drawn in SVG scaled to the width it gets,
 * so that it fits a phone as it fits a desktop.
 */
export function MoneyBars({ days, currency }: { days: DayBar[]; currency: string | null }) {
  if (!days.length) return null;
  const values = days.flatMap((d) => [d.planned_savings, d.realised_savings ?? 0, 0]);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const span = hi - lo || 1;
  const y = (v: number) => ((hi - v) / span) * (HEIGHT - AXIS);
  const slot = WIDTH / days.length;
  const bar = Math.max(2, slot * 0.7);
  const money = (v: number) => `${v < 0 ? '−' : ''}${formatMoney(v, currency ?? undefined)}`;
  return (
    <figure className="money-bars" aria-label="Savings per day">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label="Planned and realised savings per day">
        <line x1={0} x2={WIDTH} y1={y(0)} y2={y(0)} className="zero" />
        {days.map((d, i) => {
          const x = i * slot + (slot - bar) / 2;
          // A day that saves nothing still gets a sliver, so that it is seen to be there.
          const height = Math.max(2, Math.abs(y(0) - y(d.planned_savings)));
          const kind = d.fallback_steps > 0 ? 'fallback' : d.past_steps < d.steps ? 'ahead' : 'past';
          const label = `${d.period}: planned ${money(d.planned_savings)}${d.realised_savings === null ? '' : `, realised ${money(d.realised_savings)}`}`;
          return (
            <g key={d.period} aria-label={label}>
              <title>{label}</title>
              <rect x={x} width={bar} y={d.planned_savings >= 0 ? y(0) - height : y(0)} height={height} className={`planned ${kind}`} />
              {d.realised_savings !== null && (
                <rect
                  x={x + bar / 3}
                  width={bar / 3}
                  y={Math.min(y(0), y(d.realised_savings))}
                  height={Math.abs(y(0) - y(d.realised_savings))}
                  className="realised"
                />
              )}
              {(days.length <= 10 || i % Math.ceil(days.length / 10) === 0) && (
                <text x={i * slot + slot / 2} y={HEIGHT - 4} textAnchor="middle">
                  {DateTime.fromISO(d.period).toFormat('d')}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        Planned savings per day (above the line: saves, below: loses); the narrow dark bar is what was realised. Light: days still ahead;
        orange: days with fallback steps.
      </figcaption>
    </figure>
  );
}
