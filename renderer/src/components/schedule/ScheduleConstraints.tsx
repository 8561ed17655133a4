import type { DeviceConstraints, JobResult } from '../../api/types.ts';
import { formatTime } from '../../lib/time.ts';
import { commitmentLabel, formatMoney } from '../../lib/money.ts';
import { DataTable } from '../DataTable.tsx';

type Kind = Exclude<keyof DeviceConstraints, 'asset' | 'sensor'>;

const KINDS: Record<Kind, string> = {
  'soc-minima': 'SoC minima',
  'soc-maxima': 'SoC maxima',
  'soc-targets': 'SoC targets',
  'consumption-capacity': 'Consumption capacity',
  'production-capacity': 'Production capacity',
};

interface Row {
  key: string;
  device: string;
  kind: string;
  breached: boolean;
  steps: number;
  /** The largest violation, or the smallest margin, as the server wrote it ("20.0 kWh"). */
  worst: string;
  at: string;
}

/** One row per device and kind: how many steps, and the worst one (largest violation, smallest margin). */
function rowsOf(list: DeviceConstraints[] | undefined, breached: boolean, names: Record<number, string>, zone: string): Row[] {
  return (list ?? []).flatMap((entry) =>
    (Object.keys(KINDS) as Kind[]).flatMap((kind) => {
      const slots = entry[kind];
      if (!slots?.length) return [];
      const size = (s: (typeof slots)[number]) => parseFloat((breached ? s.violation : s.margin) ?? '0');
      const worst = slots.reduce((a, b) => ((breached ? size(b) > size(a) : size(b) < size(a)) ? b : a));
      return [
        {
          key: `${entry.sensor}-${kind}-${breached}`,
          device: names[entry.sensor] ?? `sensor ${entry.sensor}`,
          kind: KINDS[kind],
          breached,
          steps: slots.length,
          worst: (breached ? worst.violation : worst.margin) ?? '',
          at: formatTime(Date.parse(worst.datetime), zone),
        },
      ];
    }),
  );
}

interface Props {
  result: JobResult;
  zone: string;
  /** Sensor names by id. */
  names: Record<number, string>;
}

/**
 * A storage schedule's soft constraints per device — breached ones (unresolved) with their largest
 * violation, met ones (resolved) with their smallest margin — and the cost of each commitment.
 */
export function ScheduleConstraints({ result, zone, names }: Props) {
  const rows = [...rowsOf(result.unresolved, true, names, zone), ...rowsOf(result.resolved, false, names, zone)];
  const costs = Object.entries(result.commitment_costs ?? {});
  return (
    <>
      {rows.length > 0 && (
        <section aria-label="Soft constraints" className="table-wrap">
          <h3>Soft constraints</h3>
          <DataTable
            wrap={null}
            columns={['Device', 'Constraint', 'Status', 'Steps', 'Largest violation / smallest margin', 'At']}
            rows={rows}
            row={(r) => (
              <tr key={r.key} className={r.breached ? 'invalid' : undefined}>
                <td>{r.device}</td>
                <td>{r.kind}</td>
                <td>
                  <span className={`badge ${r.breached ? 'breached' : 'met'}`}>{r.breached ? 'Unresolved' : 'Resolved'}</span>
                </td>
                <td className="num">{r.steps}</td>
                <td className="num">{r.breached ? `violation ${r.worst}` : `margin ${r.worst}`}</td>
                <td>{r.at}</td>
              </tr>
            )}
          />
        </section>
      )}
      {/* The energy cost alone is shown above. */}
      {costs.length > 1 && (
        <section aria-label="Cost per commitment" className="table-wrap">
          <h3>Cost per commitment</h3>
          <DataTable
            wrap={null}
            columns={['Commitment', 'Cost']}
            rows={costs}
            row={([name, cost]) => (
              <tr key={name}>
                <td>
                  {commitmentLabel(name)} <code className="api-key">{name}</code>
                </td>
                <td className="num">{`${cost < 0 ? '−' : ''}${formatMoney(cost, result.currency)}`}</td>
              </tr>
            )}
          />
        </section>
      )}
    </>
  );
}
