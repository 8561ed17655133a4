import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { JobQueue } from '../jobs/jobQueue.ts';
import { Periodic } from '../periodic.ts';
import { listAutomations, markQueued } from '../store/automations.ts';
import { getAsset } from '../store/assets.ts';
import { latestDue } from '../domain/cron.ts';
import type { AutomationJobArgs } from '../contracts/jobs.ts';

/** A run's job is the same job for the same automation and due time, however often it is asked for. */
const SAME_RUN_S = 400 * 86_400;
const TICK_MS = 15_000;

/**
 * Starts automation runs when they are due. Each tick queues, per automation, one job for the
 * latest due time not yet queued: the job's arguments name the due time, so asking twice (two
 * processes, or a restart between queueing and recording it) finds the same job instead of a
 * second run; the first tick after a start is the catch-up.
 */
export class AutomationClock extends Periodic {
  constructor(
    private db: Knex,
    private jobs: JobQueue,
    log: Logger,
    clock: Clock,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'automation clock'), clock);
  }

  /**
   * Queues what is due at `nowMs`.
   * @returns how many runs were queued.
   */
  protected async work(nowMs: number): Promise<number> {
    let queued = 0;
    for (const automation of await listAutomations(this.db, { enabled: true })) {
      const due = latestDue(automation.cron, automation.timezone, automation.lastDueMs ?? automation.createdAtMs, nowMs);
      if (due === null) continue;
      const asset = await getAsset(this.db, automation.assetId);
      // Each run acts for the automation's maker, whose rights it resolves when it runs.
      const principal = { kind: 'automation' as const, automationId: automation.id, ownerId: automation.ownerId };
      const args: AutomationJobArgs = { automationId: automation.id, dueMs: due, principal };
      const job = await this.jobs.enqueue('automation', args, {
        accountId: asset?.account_id ?? null,
        sensorId: null,
        reuseWithinS: SAME_RUN_S,
      });
      if (await markQueued(this.db, automation.id, due, job.id)) queued++;
      // Requests wait while a tick holds the event loop: give them a turn between automations.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return queued;
  }
}
