import type { z } from 'zod';
import { API } from '../../api/client.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';
import { usePolling } from '../../hooks/usePolling.ts';
import { formatTime } from '../../lib/time.ts';
import { ErrorNotice } from '../Status.tsx';

type Flow = z.infer<typeof cockpit.siteNow>['flow'][number];
type PowerRole = Exclude<Flow['role'], 'soc'>;

/** How often the latest measurements are read again: a posted value shows within seconds. */
const LIVE_MS = 3000;
/** Below this a flow is drawn as idle: meters report a few watts of noise. */
const IDLE_KW = 0.0005;

/** Where each part sits around the site, its name, and the words for its two directions (positive first). */
const PARTS: Record<PowerRole, { x: number; y: number; name: string; words: [string, string]; towardSite: boolean }> = {
  pv: { x: 200, y: 36, name: 'Solar', words: ['producing', 'drawing'], towardSite: true },
  grid: { x: 70, y: 140, name: 'Grid', words: ['importing', 'exporting'], towardSite: true },
  house: { x: 330, y: 140, name: 'House', words: ['using', 'supplying'], towardSite: false },
  battery: { x: 110, y: 246, name: 'Battery', words: ['charging', 'discharging'], towardSite: false },
  car: { x: 290, y: 246, name: 'Car', words: ['charging', 'supplying'], towardSite: false },
};
const HUB = { x: 200, y: 140 };

/** A power in kW as shown: its size with two decimals, the direction says the sign. */
const kw = (value: number) => `${Math.abs(value).toFixed(2)} kW`;

/** What a part does, in words: "importing 2.50 kW", "idle", "no data since …" for a stale part. */
function stateText(flow: Flow, zone: string): string {
  if (flow.value === null) return 'no data yet';
  if (flow.stale) return `no data since ${formatTime(flow.since, zone)}`;
  const role = flow.role as PowerRole;
  if (Math.abs(flow.value) < IDLE_KW) return 'idle';
  return `${PARTS[role].words[flow.value > 0 ? 0 : 1]} ${kw(flow.value)}`;
}

/** Which way power runs along a part's line: toward the site, away from it, or not (idle, stale, unknown). */
function direction(flow: Flow): 'in' | 'out' | 'none' {
  if (flow.value === null || flow.stale || Math.abs(flow.value) < IDLE_KW) return 'none';
  const positiveIn = PARTS[flow.role as PowerRole].towardSite;
  return flow.value > 0 === positiveIn ? 'in' : 'out';
}

/** One part: its line to the site with an arrow the way power runs, its circle, name, value and state. */
function Part({ flow, soc, zone }: { flow: Flow; soc: Flow | undefined; zone: string }) {
  const p = PARTS[flow.role as PowerRole];
  const dir = direction(flow);
  const [from, to] = dir === 'out' ? [HUB, p] : [p, HUB];
  const state = stateText(flow, zone);
  const socText =
    soc &&
    (soc.value === null ? 'SoC unknown' : soc.stale ? `SoC no data since ${formatTime(soc.since, zone)}` : `SoC ${soc.value.toFixed(0)} %`);
  const label = [p.name, state, socText].filter(Boolean).join(', ');
  return (
    <g
      className={`flow-part${flow.stale || flow.value === null ? ' flow-stale' : ''}`}
      data-role={flow.role}
      data-direction={dir}
      role="group"
      aria-label={label}
    >
      <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} className={`flow-line flow-${dir}`} />
      {dir !== 'none' && (
        <polyline
          points={`${from.x},${from.y} ${(from.x + to.x) / 2},${(from.y + to.y) / 2} ${to.x},${to.y}`}
          className="flow-arrow-path"
          markerMid="url(#flow-arrow)"
        />
      )}
      <circle cx={p.x} cy={p.y} r={24} className="flow-node" />
      <text x={p.x} y={p.y + 4} textAnchor="middle" className="flow-name">
        {p.name}
      </text>
      <text x={p.x} y={p.y + 40} textAnchor="middle" className="flow-value" data-value>
        {state}
      </text>
      {socText && (
        <text x={p.x} y={p.y + 56} textAnchor="middle" className="flow-value" data-soc>
          {socText}
        </text>
      )}
    </g>
  );
}

/**
 * The site's power flow now, drawn: the grid, solar, battery (with its SoC), house and car around
 * the site, each line with an arrow the way power runs and its value in kW, from the devices'
 * latest measurements, read again every few seconds. A part whose data is stale says since when
 * (in the site's zone) and draws no flow: an old value is not shown as now.
 */
export function PowerFlow({ assetId, zone, name }: { assetId: number; zone: string; name: string }) {
  const now = useApi(`${API}/assets/${assetId}/now`, undefined, cockpit.siteNow);
  usePolling(now.reload, LIVE_MS);
  const flow = now.data?.flow ?? [];
  const soc = flow.find((f) => f.role === 'soc');
  const parts = flow.filter((f) => f.role !== 'soc');
  if (now.error) return <ErrorNotice error={now.error} />;
  if (now.data && !parts.length)
    return <p className="muted">No grid meter, solar, battery, house load or charger with a power sensor yet.</p>;
  return (
    <figure className="power-flow" aria-label={`Power flow of ${name}`} data-state={now.data ? 'ready' : 'loading'}>
      <svg
        viewBox="0 0 400 310"
        role="img"
        aria-label={parts.map((f) => `${PARTS[f.role as PowerRole].name} ${stateText(f, zone)}`).join('; ')}
      >
        <defs>
          <marker id="flow-arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="9" markerHeight="9" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="flow-arrowhead" />
          </marker>
        </defs>
        {parts.map((f) => (
          <Part key={f.role} flow={f} soc={f.role === 'battery' ? soc : undefined} zone={zone} />
        ))}
        <circle cx={HUB.x} cy={HUB.y} r={16} className="flow-hub" />
      </svg>
      {now.data && (
        <figcaption className="muted">
          Latest measurements at {formatTime(now.data.now, zone)} ({zone})
        </figcaption>
      )}
    </figure>
  );
}
