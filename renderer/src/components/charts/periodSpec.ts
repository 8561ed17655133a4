import { DateTime } from 'luxon';
import type { z } from 'zod';
import type * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { SCHEMA, type Spec } from './scheduleSpecs.ts';

type Answer = z.infer<typeof cockpit.energyPeriods>;
/** A part of a period as the energy answer gives it. */
type Part = Answer['current']['parts'][number];
type Kind = Answer['period'];

/** Where a part sits on the axis, so that a period's parts meet the previous one's: the hour, the weekday, the day of the month, the month. */
function slot(part: Part, kind: Kind, zone: string): string {
  const start = DateTime.fromISO(part.start, { zone });
  return { day: part.period, week: start.toFormat('ccc'), month: start.toFormat('d'), year: start.toFormat('LLL') }[kind];
}

/**
 * Bars of the energy consumed in each part of a period (a day's hours, a week's or a month's
 * days, a year's months) beside the same part of the previous period, with each part's import,
 * export and PV in its tooltip and aria label.
 * @param periods the period's and the previous period's name (as the legend says it) and parts.
 */
export function periodBarsSpec(periods: { name: string; parts: Part[] }[], kind: Kind, zone: string): Spec {
  const rows = periods.flatMap(({ name, parts }) =>
    parts.map((p) => ({
      slot: slot(p, kind, zone),
      series: name,
      date: DateTime.fromISO(p.start, { zone }).toFormat(
        kind === 'day' ? 'ccc d LLL HH:mm' : kind === 'year' ? 'LLLL yyyy' : 'ccc d LLL yyyy',
      ),
      consumed: p.consumed_kwh,
      imported: p.imported_kwh,
      exported: p.exported_kwh,
      pv: p.pv_kwh,
    })),
  );
  // The current period's order; a slot only the previous one has comes after it (a 31st), or for
  // hours in clock order (the 02:00 a daylight-saving day skipped).
  const order = [...new Set(rows.map((r) => r.slot))];
  if (kind === 'day') order.sort();
  return {
    $schema: SCHEMA,
    width: 'container',
    height: 200,
    data: { values: rows },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      x: { field: 'slot', type: 'ordinal', sort: order, title: null, axis: { labelAngle: 0, labelOverlap: true } },
      xOffset: { field: 'series', sort: periods.map((p) => p.name) },
      y: { field: 'consumed', type: 'quantitative', title: 'Consumed (kWh)', axis: { format: ',.3~f' } },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        sort: periods.map((p) => p.name),
        scale: { range: ['#2f6fdb', '#b9c0cc'] },
        legend: { labelLimit: 320 },
      },
      tooltip: [
        { field: 'series', title: 'Period' },
        { field: 'date', title: 'When' },
        { field: 'consumed', title: 'Consumed (kWh)', format: ',.3~f' },
        { field: 'imported', title: 'Imported (kWh)', format: ',.3~f' },
        { field: 'exported', title: 'Exported (kWh)', format: ',.3~f' },
        { field: 'pv', title: 'PV (kWh)', format: ',.3~f' },
      ],
    },
  };
}
