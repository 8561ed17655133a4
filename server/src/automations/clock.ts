import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { JobQueue, JobRecord } from '../jobs/jobQueue.ts';
import { Periodic } from '../periodic.ts';
import { enabledAutomations, type Automation } from '../store/automations.ts';
import { automationChanges, markQueued } from '../store/write/automations.ts';
import { latestDueFrom, nextDue } from '../domain/cron.ts';
import type { AutomationJobArgs } from '../contracts/jobs.ts';
import type { AlreadyRead, UnchangedRun } from './runAutomation.ts';

/** Runs answered without the queue (see the clock's constructor). */
export interface UnchangedRuns {
  /** `read`: the automation and its asset's account as this tick read them, which the run need not read again. */
  run(args: AutomationJobArgs, jobs: Pick<JobQueue, 'enqueue'>, read: AlreadyRead): Promise<UnchangedRun | undefined>;
  succeeded(accountId: number, automationId: number): Promise<void>;
}

/** An enabled automation as a tick reads it: with the account of its asset, which its runs are recorded for. */
type Listed = Automation & { accountId: number | null };

/** Whether a job has finished or failed: nothing of it is left for the queue to do. */
const ended = (job: Pick<JobRecord, 'status'>) => job.status === 'finished' || job.status === 'failed';

/** What an automation's first due time after its last queued one depends on. */
const dueKey = (a: Automation) => `${a.cron} ${a.timezone} ${a.lastDueMs ?? a.createdAtMs}`;

/** A run's job is the same job for the same automation and due time, however often it is asked for. */
const SAME_RUN_S = 400 * 86_400;
const TICK_MS = 15_000;
/** The longest the clock keeps its list of automations, for changes made by another process (the CLI, another server). */
const LIST_KEPT_MS = 60_000;

/**
 * Starts automation runs when they are due. Each tick queues, per automation, one job for the
 * latest due time not yet queued: the job's arguments name the due time, so asking twice (two
 * processes, or a restart between queueing and recording it) finds the same job instead of a
 * second run; the first tick after a start is the catch-up.
 */
export class AutomationClock extends Periodic {
  /**
   * Per automation, its first due time after its last queued one, kept while its cron, time zone
   * and last due time stay the same: a tick then compares times instead of asking the cron for
   * its previous runs (every 15 s, for every automation).
   */
  private firstDue = new Map<number, { key: string; dueMs: number | null }>();

  /**
   * The enabled automations as last read, with this process's count of automation changes and
   * the time they were read. A tick reads them again when one of them is due (its run then starts
   * from the stored automation), when this process changed one, and at least every minute: an
   * automation made elsewhere is due at the latest one minute later, and its run is caught up.
   */
  private listed?: { automations: Listed[]; changes: number; atMs: number };

  /**
   * @param unchanged in a process that runs automations: answers a run that would only find its
   *   automation's last schedule job again (see `AutomationRuns.unchanged`), and ends the spell of
   *   failures a successful run ends.
   */
  constructor(
    private db: Knex,
    private jobs: JobQueue,
    log: Logger,
    clock: Clock,
    private unchanged?: UnchangedRuns,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'automation clock'), clock);
  }

  /**
   * Queues what is due at `nowMs`.
   * @returns how many runs set off work in the queue (a run recorded finished without it set off
   *   none, unless it queued its schedule job again): what a simulated clock waits for.
   */
  protected async work(nowMs: number): Promise<number> {
    let queued = 0;
    const firstDue = new Map<number, { key: string; dueMs: number | null }>();
    const automations = await this.enabledAutomations(nowMs);
    for (const [i, automation] of automations.entries()) {
      const afterMs = automation.lastDueMs ?? automation.createdAtMs;
      const first = this.firstDueOf(automation);
      firstDue.set(automation.id, first);
      // Nothing due since the last run: no due time lies in (afterMs, nowMs].
      if (first.dueMs === null || first.dueMs > nowMs) continue;
      const { dueMs: due, nextMs } = latestDueFrom(automation.cron, automation.timezone, afterMs, first.dueMs, nowMs);
      if (due === null) continue;
      if (await this.queue(automation, due)) queued++;
      // The kept list goes on from this run (markQueued stored it, or found a later one stored).
      automations[i] = { ...automation, lastDueMs: due };
      // And so does the first due time after it, when found already.
      if (nextMs !== undefined) firstDue.set(automation.id, { key: dueKey(automations[i]), dueMs: nextMs });
      // Requests wait while a tick holds the event loop: give them a turn between automations.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Only the automations still enabled keep an entry.
    this.firstDue = firstDue;
    return queued;
  }

  /** The first due time after an automation's last queued one (kept while its key holds). */
  private firstDueOf(automation: Automation): { key: string; dueMs: number | null } {
    const afterMs = automation.lastDueMs ?? automation.createdAtMs;
    const key = dueKey(automation);
    const kept = this.firstDue.get(automation.id);
    return kept?.key === key ? kept : { key, dueMs: nextDue(automation.cron, automation.timezone, afterMs) };
  }

  /** The enabled automations: the kept list while it holds (see `listed`), else read again. */
  private async enabledAutomations(nowMs: number): Promise<Listed[]> {
    const changes = automationChanges();
    const kept = this.listed;
    const holds =
      kept !== undefined &&
      kept.changes === changes &&
      nowMs >= kept.atMs &&
      nowMs - kept.atMs < LIST_KEPT_MS &&
      kept.automations.every((a) => {
        const { dueMs } = this.firstDueOf(a);
        return dueMs === null || dueMs > nowMs;
      });
    if (holds) return kept.automations;
    const automations = await enabledAutomations(this.db);
    this.listed = { automations, changes, atMs: nowMs };
    return automations;
  }

  /**
   * Queues (or records, when unchanged) the automation's run due at `due`.
   * @returns whether this call marked it queued and set off work in the queue.
   */
  private async queue(automation: Listed, due: number): Promise<boolean> {
    // Each run acts for the automation's maker, whose rights it resolves when it runs.
    const principal = { kind: 'automation' as const, automationId: automation.id, ownerId: automation.ownerId };
    const args: AutomationJobArgs = { automationId: automation.id, dueMs: due, principal };
    const options = { accountId: automation.accountId, sensorId: null, reuseWithinS: SAME_RUN_S };
    // A run that would only find the last run's job is recorded as it ran, finished, without
    // a turn in the queue (an automation due every minute is that run fourteen times a quarter hour).
    const { accountId, ...stored } = automation;
    let setOff = false;
    const jobs: Pick<JobQueue, 'enqueue'> = {
      // An unchanged run queues its schedule job again once its time to live ran out.
      enqueue: async (queue, jobArgs, jobOptions) => {
        const queued = await this.jobs.enqueue(queue, jobArgs, jobOptions);
        setOff ||= !ended(queued);
        return queued;
      },
    };
    const unchanged = await this.unchanged?.run(args, jobs, { automation: stored, accountId });
    const job = unchanged
      ? await this.jobs.record('automation', args, unchanged.result, options)
      : await this.jobs.enqueue('automation', args, options);
    // It ends the automation's spell of failures, which it read with its stamp.
    if (unchanged?.spellOpen && options.accountId !== null) await this.unchanged?.succeeded(options.accountId, automation.id);
    const marked = await markQueued(this.db, automation.id, due, job.id);
    return marked && (setOff || !ended(job));
  }
}
