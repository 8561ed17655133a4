import type { Knex } from 'knex';

/**
 * What a schedule's money figures are computed from, per step: kept with the schedule
 * (`schedule_money`) so that the realised figure can be computed once measurements arrive.
 */
export interface MoneySeries {
  stepHours: number;
  /** Currency per MWh. */
  consumptionPrice: number[];
  /** Null when production is paid the consumption price. */
  productionPrice: number[] | null;
  /** Power of the site without its scheduled devices (MW, consumption positive). */
  inflexibleMw: number[];
  /** Each scheduled device: the plan, and what it would do if nobody planned (MW, consumption positive). */
  devices: { sensorId: number; powerMw: number[]; baselineMw: number[] }[];
}

/** A schedule's money series as kept beside its beliefs. */
export interface ScheduleMoney {
  jobId: string;
  sensorId: number;
  startMs: number;
  endMs: number;
  stepMs: number;
  beliefTimeMs: number;
  currency: string | null;
  /** Made by the fallback scheduler: a degraded plan, counted but marked. */
  fallback: boolean;
  series: MoneySeries;
}

interface DbScheduleMoney {
  job_id: string;
  sensor_id: number;
  start_ms: number;
  end_ms: number;
  step_ms: number;
  belief_time_ms: number;
  currency: string | null;
  fallback: boolean | number;
  series: string;
}

/**
 * @returns the schedules of these sensors that overlap the window and were made (belief time)
 *   before its end, oldest belief time first (then in the order stored): one made later is in
 *   force at none of its steps.
 */
export async function scheduleMoneyIn(db: Knex, sensorIds: number[], startMs: number, endMs: number): Promise<ScheduleMoney[]> {
  if (!sensorIds.length) return [];
  const rows = await db<DbScheduleMoney>('schedule_money')
    .whereIn('sensor_id', sensorIds)
    .andWhere('start_ms', '<', endMs)
    .andWhere('end_ms', '>', startMs)
    .andWhere('belief_time_ms', '<', endMs)
    // Of plans made at the same time, the one stored last comes last (older rows have no number).
    .orderByRaw('belief_time_ms, COALESCE(stored_seq, 0), job_id');
  return rows.map((r) => ({
    jobId: r.job_id,
    sensorId: Number(r.sensor_id),
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    stepMs: Number(r.step_ms),
    beliefTimeMs: Number(r.belief_time_ms),
    currency: r.currency,
    fallback: Boolean(r.fallback),
    series: JSON.parse(r.series) as MoneySeries,
  }));
}
