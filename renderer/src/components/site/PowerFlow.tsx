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

/** How a label lines up on its x: from it, around it, or up to it. */
type Anchor = 'start' | 'middle' | 'end';

/**
 * Where each part sits around the site, its name, the words for its two directions (positive
 * first), and where its label goes: beside the node (start-anchored, centred on it) or below it,
 * anchored so that no label crosses a line to the site or leaves the drawing.
 */
const PARTS: Record<
  PowerRole,
  { x: number; y: number; name: string; words: [string, string]; towardSite: boolean; label: { dx: number; anchor: Anchor; beside?: true } }
> = {
  pv: { x: 212, y: 40, name: 'Solar', words: ['producing', 'drawing'], towardSite: true, label: { dx: 34, anchor: 'start', beside: true } },
  grid: { x: 32, y: 150, name: 'Grid', words: ['importing', 'exporting'], towardSite: true, label: { dx: -24, anchor: 'start' } },
  house: { x: 392, y: 150, name: 'House', words: ['using', 'supplying'], towardSite: false, label: { dx: 24, anchor: 'end' } },
  battery: { x: 112, y: 270, name: 'Battery', words: ['charging', 'discharging'], towardSite: false, label: { dx: 0, anchor: 'middle' } },
  car: { x: 312, y: 270, name: 'Car', words: ['charging', 'supplying'], towardSite: false, label: { dx: 0, anchor: 'middle' } },
};
const HUB = { x: 212, y: 150 };
/** The drawing's width; its height follows the labels of the bottom row (battery and car). */
const WIDTH = 424;
/** The first baseline of a label below its node, from the node's centre. */
const BELOW = 42;
/** From one label line's baseline to the next, in drawing units (the value font is 13). */
const LINE = 17;

/** A power in kW as shown: its size with two decimals, the direction says the sign. */
const kw = (value: number) => `${Math.abs(value).toFixed(2)} kW`;

/** A stale reading's lines: since when goes on a line of its own, so the label stays narrow. */
const staleLines = (what: string, since: string | null, zone: string) => [`${what}no data since`, formatTime(since, zone)];

/** What a part does, in lines: ["importing 2.50 kW"], ["idle"], ["no data since", "2025-03-31 00:00"] when stale. */
function stateLines(flow: Flow, zone: string): string[] {
  if (flow.value === null) return ['no data yet'];
  if (flow.stale) return staleLines('', flow.since, zone);
  const role = flow.role as PowerRole;
  if (Math.abs(flow.value) < IDLE_KW) return ['idle'];
  return [`${PARTS[role].words[flow.value > 0 ? 0 : 1]} ${kw(flow.value)}`];
}

/** The battery's state of charge, in lines as a part's state. */
function socLines(soc: Flow, zone: string): string[] {
  if (soc.value === null) return ['SoC unknown'];
  return soc.stale ? staleLines('SoC ', soc.since, zone) : [`SoC ${soc.value.toFixed(0)} %`];
}

/** Which way power runs along a part's line: toward the site, away from it, or not (idle, stale, unknown). */
function direction(flow: Flow): 'in' | 'out' | 'none' {
  if (flow.value === null || flow.stale || Math.abs(flow.value) < IDLE_KW) return 'none';
  const positiveIn = PARTS[flow.role as PowerRole].towardSite;
  return flow.value > 0 === positiveIn ? 'in' : 'out';
}

/**
 * Lines of a label, one under another from baseline `y`. Each line but the last ends in a space,
 * so that the text reads as one phrase ("no data since 2025-03-31 00:00") to screen readers and copy.
 */
function Lines({ x, y, anchor, lines, kind }: { x: number; y: number; anchor: Anchor; lines: string[]; kind: 'value' | 'soc' }) {
  return (
    <text
      x={x}
      y={y}
      textAnchor={anchor}
      className="flow-value"
      data-value={kind === 'value' || undefined}
      data-soc={kind === 'soc' || undefined}
    >
      {lines.map((line, i) => (
        <tspan key={i} x={x} dy={i ? LINE : 0}>
          {i < lines.length - 1 ? `${line} ` : line}
        </tspan>
      ))}
    </text>
  );
}

/** One part: its line to the site with an arrow the way power runs, its circle, name, value and state. */
function Part({ flow, soc, zone }: { flow: Flow; soc: Flow | undefined; zone: string }) {
  const p = PARTS[flow.role as PowerRole];
  const dir = direction(flow);
  const [from, to] = dir === 'out' ? [HUB, p] : [p, HUB];
  const state = stateLines(flow, zone);
  const socText = soc && socLines(soc, zone);
  const count = state.length + (socText?.length ?? 0);
  const x = p.x + p.label.dx;
  const y = p.label.beside ? p.y + 5 - ((count - 1) * LINE) / 2 : p.y + BELOW;
  const label = [p.name, state.join(' '), socText?.join(' ')].filter(Boolean).join(', ');
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
      <circle cx={p.x} cy={p.y} r={26} className="flow-node" />
      <text x={p.x} y={p.y + 4} textAnchor="middle" className="flow-name">
        {p.name}
      </text>
      <Lines x={x} y={y} anchor={p.label.anchor} lines={state} kind="value" />
      {socText && <Lines x={x} y={y + state.length * LINE} anchor={p.label.anchor} lines={socText} kind="soc" />}
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
  // Room below the bottom row for its longest label: a stale battery with a stale SoC takes four lines.
  const bottom = Math.max(...Object.values(PARTS).map((p) => p.y));
  const rows = Math.max(
    1,
    ...parts
      .filter((f) => PARTS[f.role as PowerRole].y === bottom)
      .map((f) => stateLines(f, zone).length + (f.role === 'battery' && soc ? socLines(soc, zone).length : 0)),
  );
  if (now.error) return <ErrorNotice error={now.error} />;
  if (now.data && !parts.length)
    return <p className="muted">No grid meter, solar, battery, house load or charger with a power sensor yet.</p>;
  return (
    <figure className="power-flow" aria-label={`Power flow of ${name}`} data-state={now.data ? 'ready' : 'loading'}>
      <svg
        viewBox={`0 0 ${WIDTH} ${bottom + BELOW + (rows - 1) * LINE + 8}`}
        role="img"
        aria-label={parts.map((f) => `${PARTS[f.role as PowerRole].name} ${stateLines(f, zone).join(' ')}`).join('; ')}
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
