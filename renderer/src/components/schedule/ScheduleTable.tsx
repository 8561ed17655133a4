import { useMemo } from 'react';
import type { JobResult } from '../../api/types.ts';
import { toCsv } from '../../lib/csv.ts';
import { download } from '../../lib/download.ts';
import { formatTime } from '../../lib/time.ts';
import { scheduleColumns, scheduleCsvRows, totalCost, type ScheduleColumn } from './scheduleTable.ts';

interface Props {
  result: JobResult;
  zone: string;
  names: Record<number, string>;
  /** Names the downloaded file. */
  jobId: string;
}

/** Money with cents (more digits where a step costs less than a cent), other values to three decimals; a true minus sign. */
function cell(value: number | null, kind: ScheduleColumn['kind']): string {
  if (value === null) return '–';
  const digits = kind === 'cost' ? { minimumFractionDigits: 2, maximumFractionDigits: 4 } : { maximumFractionDigits: 3 };
  const text = Math.abs(value).toLocaleString('en', digits);
  return value < 0 && text !== '0' && text !== '0.00' ? `\u2212${text}` : text;
}

/**
 * The schedule step by step (time, power, state of charge, price, cost) with the total cost
 * (the sum of the step costs: the plan's cost), and the same as a CSV file.
 */
export function ScheduleTable({ result, zone, names, jobId }: Props) {
  const columns = useMemo(() => scheduleColumns(result, names), [result, names]);
  const steps = columns[0]?.values.length ?? 0;
  const total = totalCost(result);
  const save = () => download(`schedule-${jobId}.csv`, toCsv(scheduleCsvRows(result, zone, names)));
  return (
    <section className="schedule-table" aria-label="Schedule table">
      <div className="actions">
        <button type="button" onClick={save}>
          Download CSV
        </button>
      </div>
      <div className="table-wrap tall">
        {/* On a phone each step is a block of labelled cells (app.css, `.stack-narrow`): no column off-screen. */}
        <table aria-label="Schedule steps" className="stack-narrow">
          <thead>
            <tr>
              <th scope="col">Start ({zone})</th>
              {columns.map((c) => (
                <th scope="col" key={c.heading}>
                  {c.heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: steps }, (_, j) => (
              <tr key={j}>
                <td data-label={`Start (${zone})`}>{formatTime(result.start_ms + j * result.step_ms, zone)}</td>
                {columns.map((c) => (
                  <td className="num" key={c.heading} data-label={c.heading}>
                    {cell(c.values[j], c.kind)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          {total !== undefined && (
            <tfoot>
              <tr>
                <th scope="row" colSpan={columns.length}>
                  Total cost
                </th>
                <td className="num" data-testid="schedule-total-cost">
                  {cell(total, 'cost')}
                </td>
              </tr>
            </tfoot>
          )}
        </table>
      </div>
    </section>
  );
}
