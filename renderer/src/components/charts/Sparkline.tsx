import { useMemo } from 'react';

interface Props {
  values: { t: number; v: number }[];
  label: string;
  width?: number;
  height?: number;
}

/** A tiny line of recent values, drawn as plain SVG so that dashboards need no chart library. */
export function Sparkline({ values, label, width = 160, height = 36 }: Props) {
  const path = useMemo(() => {
    if (values.length < 2) return '';
    const ts = values.map((p) => p.t);
    const vs = values.map((p) => p.v);
    const [t0, t1] = [Math.min(...ts), Math.max(...ts)];
    const [v0, v1] = [Math.min(...vs), Math.max(...vs)];
    const x = (t: number) => ((t - t0) / (t1 - t0 || 1)) * (width - 2) + 1;
    const y = (v: number) => height - 1 - ((v - v0) / (v1 - v0 || 1)) * (height - 2);
    return values.map((p, i) => `${i ? 'L' : 'M'}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join('');
  }, [values, width, height]);
  if (!path) return <span className="muted">no recent data</span>;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <path d={path} fill="none" stroke="currentColor" strokeWidth={1.5} />
    </svg>
  );
}
