import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import { REUSABLE_JOB } from '../jobs/jobTable.ts';
import { plannedWithin, type RecurringRead } from '../scheduling/recurringTargets.ts';
import { floorToGrid } from '../scheduling/timeGrid.ts';
import type { Automation } from '../store/automations.ts';
import { countOf, readCount, standsSince, type Count } from '../store/storeChange.ts';
import type { AutomationJobResult } from '../contracts/responses.ts';
import { configOf, OPEN_SPELL } from './unchangedSchedule.ts';
import { dueWindow } from './dueWindow.ts';

/**
 * An automation due every minute finds the same schedule job fourteen times a quarter hour. Once a
 * run found it through its stamp and key (see unchangedSchedule.ts), the runs after it need none
 * of what that run read while the store's count of writes (migration 0027) stands where it stood
 * before the run read anything and no belief has become visible since the run's belief time: all
 * it read is then as it was. One statement reads the count, the job the key finds now and the
 * automation's spell of failures; what depends on the due time alone (the grid step, the
 * recurring targets in the window) is worked out again from what the run read.
 */

/** What a run answered with, and what it read that from. */
export interface LastAnswer {
  /** The count read before the run read anything else. */
  count: Count;
  /** The belief time the run read its data at. */
  priorMs: number;
  /** The automation as the run read it (see `configOf`). */
  config: string;
  /** The scheduled sensor's resolution, and the start of the run's window on its grid. */
  stepMs: number;
  gridStartMs: number;
  /** The device's recurring targets and the soc-targets its stored flex-model lists. */
  recurring: RecurringRead;
  listed: unknown;
  /** The recurring targets the run scheduled with (JSON). */
  flexModel: string;
  /** The key of its schedule job, the job, and how long a job of a key is found. */
  jobKey: string;
  jobId: string;
  reuseWithinS: number;
  scheduleInputs: AutomationJobResult['schedule_inputs'];
}

/** The count, the job a key finds now and whether a spell of failures is open: one kept statement. */
const AGAIN = (spell: boolean) =>
  `SELECT c.n, c.newest_belief_time AS newest, j.id AS job, j.status, j.created_at, ${spell ? OPEN_SPELL : 'NULL'} AS failing FROM store_change c LEFT JOIN (SELECT id, status, created_at ${REUSABLE_JOB}) j ON 1 = 1 WHERE c.id = 1`;

interface Row {
  n: number;
  newest: number;
  job?: string | null;
  status?: string | null;
  created_at?: number | null;
  failing?: unknown;
}

/** What a run's schedule part answers: the job, whether an earlier run queued it, what fed it. */
export interface ScheduleAnswer {
  jobId: string;
  reused: boolean;
  scheduleInputs: AutomationJobResult['schedule_inputs'];
  socTargets: { value: string | number; datetime: string }[];
}

/** A run's answer when it answers as the last one did, and whether its spell of failures was open. */
export type Again = ScheduleAnswer & { spellOpen: boolean };

/** The run of an automation at a due time, as its clock's tick read it. */
export interface DueRun {
  automation: Automation;
  dueMs: number;
  nowMs: number;
  /** The automation's spell of failures, when its account is known. */
  spell?: { accountId: number; subject: string };
}

/** The answers of each automation's last run answered without the queue, in this process. */
export class LastAnswers {
  private last = new Map<number, LastAnswer>();

  /**
   * Reads the count before a run reads anything else; with the automation's last answer, whether
   * the run answers the same (`again`), in the same statement.
   * @returns nothing on a store that keeps no count.
   */
  async lookUp(db: Knex, run: DueRun): Promise<{ count: Count; again?: Again } | undefined> {
    if (!dialectOf(db).countsChanges) return undefined;
    const last = this.last.get(run.automation.id);
    if (!last) {
      const count = await readCount(db);
      return count && { count };
    }
    const { spell, nowMs } = run;
    const bindings = [...(spell ? [spell.accountId, spell.subject] : []), last.jobKey, 'scheduling', nowMs - last.reuseWithinS * 1000];
    const [row] = await dialectOf(db).query<Row>(db, AGAIN(spell !== undefined), bindings);
    const count = countOf(row);
    const unchanged = standsSince(count, last.count, last.priorMs);
    // A job still to run sets off work the caller waits for: a full lookup reports it.
    const ended = row.status === 'finished' || row.status === 'failed';
    if (!unchanged || row.job !== last.jobId || !ended) return { count };
    const socTargets = sameTargets(last, run);
    if (!socTargets) return { count };
    const again: Again = {
      jobId: last.jobId,
      reused: Number(row.created_at) < nowMs,
      scheduleInputs: last.scheduleInputs,
      socTargets,
      spellOpen: spell === undefined || (row.failing !== null && row.failing !== undefined),
    };
    return { count, again };
  }

  keep(automationId: number, answer: LastAnswer): void {
    this.last.set(automationId, answer);
  }

  forget(automationId: number): void {
    this.last.delete(automationId);
  }
}

/**
 * The recurring targets a run adds when everything that depends on its due time is as it was for
 * the last answer (the automation, the grid step, the targets in the window); else undefined.
 */
function sameTargets(last: LastAnswer, { automation, dueMs }: DueRun) {
  if (configOf(automation) !== last.config) return undefined;
  const window = dueWindow(automation, dueMs);
  if (typeof window === 'string' || floorToGrid(window.start, last.stepMs).toMillis() !== last.gridStartMs) return undefined;
  const planned = plannedWithin(last.recurring, last.listed, { startMs: dueMs, endMs: window.endMs });
  return 'problem' in planned || JSON.stringify(planned.flexModel) !== last.flexModel ? undefined : planned.added;
}
