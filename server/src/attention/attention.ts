import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { JobResult } from '../contracts/responses.ts';
import type { FlexsiteJobs } from '../contracts/jobs.ts';
import { JobFailure, type JobHandler, type JobRecord } from '../jobs/jobQueue.ts';
import { sendMail } from '../outbox.ts';
import { getAutomation } from '../store/automations.ts';
import { staleAfterMs } from '../store/lastMeasurements.ts';
import { deviceSensorName } from '../store/sensorNames.ts';
import { webhookUrlOf, type NewNotification, type Notification } from '../store/notifications.ts';
import { addNotification, endSubject, queueWebhook } from '../store/write/notifications.ts';
import { listUsers } from '../store/users.ts';
import { Periodic } from '../periodic.ts';
import { StaleReads } from './staleReads.ts';
import { failureReason, lengthOf, nameSensors, sensorName, siteTime } from './wording.ts';

/** How often sensors are checked for stale data. */
const STALE_CHECK_MS = 60_000;
/**
 * A sensor silent for longer than this did not just go stale (an imported history, a retired
 * meter): it raises nothing, so that a first check after an upgrade does not mail every old sensor.
 */
const STALE_NEWS_MS = 7 * 86_400_000;

/** The subject of an automation's spell of failing runs (see `watchAutomations`). */
export const failingAutomation = (automationId: number) => `automation-failed:${automationId}`;

/** Titles of the kinds, as mail subjects say them. */
const titles: Record<Notification['kind'], string> = {
  'schedule-failed': 'A schedule failed',
  'schedule-fallback': 'A schedule fell back to the simple policy',
  'schedule-warnings': 'A schedule finished with warnings',
  'target-missed': 'A schedule misses a target',
  'sensor-stale': 'A sensor went stale',
  'automation-failed': 'An automation failed',
  'prices-failed': 'Prices could not be fetched',
};

/**
 * What needs the operator's attention: failed, fallen-back, warned or target-missing schedules,
 * failed automations, and stale sensors. Each is stored once per account and subject, then
 * mailed (to the outbox) to the account's admins and posted to the account's webhook, if set.
 * Delivery never fails the job or check that raised it: a mail is written to the outbox file at
 * once, the webhook post is queued for the webhook outbox, which posts it on its own clock (a
 * slow receiver once held a job slot for 5 s per notification).
 */
export class Attention extends Periodic {
  /** Per sensor, from when until when its last check found it fresh (see `work`). */
  private fresh = new Map<number, { fromMs: number; untilMs: number }>();
  /**
   * Per sensor still stale at its last check, the subject of its stale spell, stored then: the
   * next check raises it again only once it changed (a sensor stale for a day was otherwise
   * raised anew, in a transaction of its own, at each of 1,440 checks).
   */
  private staleSubjects = new Map<number, string>();
  /** The check's sensors and last measurements, kept while the store's count of writes stands. */
  private reads = new StaleReads();

  constructor(
    private db: Knex,
    private config: Config,
    private log: Logger,
    clock: Clock,
    private webhooks: { wake(): void },
  ) {
    // Its clock checks for stale sensors.
    super(STALE_CHECK_MS, (err) => log.error({ err }, 'stale sensor check'), clock);
  }

  /**
   * Stores and delivers a notification, unless the account has one about the subject already.
   * @returns the new notification, or undefined.
   */
  async raise(n: NewNotification, nowMs = this.clock.now()): Promise<Notification | undefined> {
    return (await this.raised(n, nowMs)).stored;
  }

  /** `raise`, telling a notification the account had already from one that could not be stored. */
  private async raised(n: NewNotification, nowMs: number): Promise<{ stored?: Notification; failed?: true }> {
    try {
      const stored = await this.db.transaction(async (trx) => {
        const added = await addNotification(trx, n, nowMs);
        // Due now by the server's clock, which the outbox runs by (`nowMs` may be a check's own).
        if (added && (await webhookUrlOf(trx, added.accountId))) await queueWebhook(trx, added.id, this.clock.now());
        return added;
      });
      if (stored) {
        this.webhooks.wake();
        await this.mail(stored);
      }
      return { stored };
    } catch (err) {
      this.log.error({ err, subject: n.subject }, 'notification not stored');
      return { failed: true };
    }
  }

  private async mail(n: Notification): Promise<void> {
    const admins = (await listUsers(this.db, { accountId: n.accountId })).filter((u) => u.active && u.roles.includes('account-admin'));
    for (const admin of admins) {
      await sendMail(
        { config: this.config, log: this.log },
        { to: admin.email, subject: `Flexsite: ${titles[n.kind]}`, body: n.message },
      ).catch((err: unknown) => this.log.warn({ err, notification: n.id }, 'notification mail not written'));
    }
  }

  /**
   * Wraps the scheduling queue's handler so that how its jobs end raises notifications: failures,
   * falling back, warnings and missed targets. The job's outcome is unchanged.
   */
  watchSchedules(handler: JobHandler<FlexsiteJobs, 'scheduling'>): JobHandler<FlexsiteJobs, 'scheduling'> {
    return async (job, runtime) => {
      const result = await handler(job, runtime).catch(async (err: unknown) => {
        await this.jobFailed(job, err);
        throw err;
      });
      await this.scheduleFinished(job, result);
      return result;
    };
  }

  /**
   * Wraps the automation queue's handler so that a failing automation raises one notification,
   * not one per run (a run a minute would be 1,440 mails a day): its subject names the
   * automation, and a successful run ends the spell, so that the next failure is news again.
   */
  watchAutomations(handler: JobHandler<FlexsiteJobs, 'automation'>): JobHandler<FlexsiteJobs, 'automation'> {
    return async (job, runtime) => {
      const result = await handler(job, runtime).catch(async (err: unknown) => {
        await this.jobFailed(job, err);
        throw err;
      });
      if (job.accountId !== null) await this.automationSucceeded(job.accountId, job.args.automationId);
      return result;
    };
  }

  /** A run of the automation succeeded: it ends the automation's spell of failures, if any. */
  automationSucceeded(accountId: number, automationId: number): Promise<void> {
    return endSubject(this.db, accountId, failingAutomation(automationId));
  }

  private async jobFailed(job: JobRecord<FlexsiteJobs, 'scheduling' | 'automation'>, err: unknown): Promise<void> {
    if (job.accountId === null) return;
    // In the words the job records, less the exception's name, with sensors named.
    const reason = await nameSensors(this.db, failureReason(err));
    const base = { accountId: job.accountId, subject: `job:${job.id}`, jobId: job.id, sensorId: job.sensorId };
    if (job.queue === 'automation') {
      const automation = await getAutomation(this.db, job.args.automationId);
      const message = `Automation '${automation?.name ?? job.args.automationId}' failed: ${reason}`;
      await this.raise({ ...base, subject: failingAutomation(job.args.automationId), kind: 'automation-failed', message });
      return;
    }
    const device = await sensorName(this.db, job.sensorId);
    if (err instanceof JobFailure && err.fallbackJobId !== undefined) {
      const message = `The schedule of ${device} could not be solved (${reason}); the simple charge/discharge policy is used instead.`;
      await this.raise({ ...base, kind: 'schedule-fallback', message });
    } else {
      await this.raise({ ...base, kind: 'schedule-failed', message: `The schedule of ${device} failed: ${reason}` });
    }
  }

  /**
   * One notification per finished job that is not a plain success: a missed state-of-charge
   * target, else its warnings in their words (inputs extended or assumed, soft constraints
   * breached). Two warnings raise nothing: a fallback job's own (its original job's failure
   * raised that news already), a state of charge read near the start and a start floored onto
   * the grid (where the start came from, not a degraded outcome: every run would notify).
   */
  private async scheduleFinished(job: JobRecord<FlexsiteJobs, 'scheduling'>, result: JobResult): Promise<void> {
    const unresolved = result.unresolved ?? [];
    // Soft constraints are named from `unresolved`; the other warnings by their message.
    const others = (result.warnings ?? []).filter(
      (w) =>
        !['constraint-unresolved', 'target-missed', 'soc-reading', 'start-floored'].includes(w.code) &&
        !(job.args.fallback && w.code === 'fallback'),
    );
    if (job.accountId === null || (!unresolved.length && !others.length)) return;
    const missed = unresolved.filter((d) => d['soc-targets']?.length);
    const kinds = [...new Set(unresolved.flatMap((d) => Object.keys(d).filter((k) => k !== 'asset' && k !== 'sensor')))].join(', ');
    const device = await sensorName(this.db, job.sensorId);
    const targetsOf = await Promise.all(missed.map((d) => sensorName(this.db, d.sensor)));
    const said = missed.length
      ? `The schedule of ${device} misses a state-of-charge target of ${targetsOf.join(', ')}.`
      : unresolved.length
        ? `The schedule of ${device} breaches soft constraints: ${kinds}.`
        : `The schedule of ${device} finished with warnings.`;
    const message = await nameSensors(this.db, [said, ...others.map((w) => w.message)].join(' '));
    const base = { accountId: job.accountId, subject: `job:${job.id}`, jobId: job.id, sensorId: job.sensorId };
    await this.raise({ ...base, kind: missed.length ? 'target-missed' : 'schedule-warnings', message });
  }

  /** The stale-sensor check at `nowMs`, as the clock runs it (tests choose the time). */
  checkStale(nowMs: number): Promise<number> {
    return this.tick(nowMs);
  }

  /**
   * Raises a notification for each sensor whose latest measurement ended longer ago than it may
   * (`staleAfterMs`: twice its resolution, or the configured age for an instantaneous sensor)
   * before `nowMs`: once per stale spell, since the subject names the last event. Sensors never
   * measured, or silent for over a week, raise nothing.
   * @returns how many notifications were raised.
   */
  protected async work(nowMs: number): Promise<number> {
    let raised = 0;
    const fresh = new Map<number, { fromMs: number; untilMs: number }>();
    const staleSubjects = new Map<number, string>();
    // A sensor found fresh stays so until its allowed silence after that measurement's end:
    // newer data only moves that end on (a simulated week would otherwise read every sensor's
    // last measurement 10,000 times). The others' last measurements are read together, or kept
    // from an earlier check while nothing was written (see StaleReads); staleness is judged anew.
    const keptFresh = (id: number) => {
      const known = this.fresh.get(id);
      return known && known.fromMs <= nowMs && nowMs <= known.untilMs ? known : undefined;
    };
    const { sensors, lasts } = await this.reads.read(this.db, nowMs, (id) => !keptFresh(id));
    for (const sensor of sensors) {
      const known = keptFresh(sensor.id);
      if (known) {
        fresh.set(sensor.id, known);
        continue;
      }
      const last = lasts.get(sensor.id);
      if (!last) continue;
      const endMs = last.eventStartMs + sensor.resolutionMs;
      const allowedMs = staleAfterMs(sensor.resolutionMs, this.config.instantStaleMs);
      if (nowMs - endMs <= allowedMs) fresh.set(sensor.id, { fromMs: nowMs, untilMs: endMs + allowedMs });
      if (nowMs - endMs <= allowedMs || nowMs - endMs > STALE_NEWS_MS) continue;
      const subject = `sensor-stale:${sensor.id}:${last.eventStartMs}`;
      if (this.staleSubjects.get(sensor.id) === subject) {
        staleSubjects.set(sensor.id, subject);
        continue;
      }
      const { stored, failed } = await this.raised(
        {
          accountId: sensor.accountId,
          kind: 'sensor-stale',
          subject,
          sensorId: sensor.id,
          message: `${deviceSensorName(sensor.assetName, sensor.name)} has had no data since ${siteTime(endMs, sensor.timezone)}; it counts as stale after ${lengthOf(allowedMs)} without data.`,
        },
        nowMs,
      );
      // One that could not be stored is tried again at the next check.
      if (!failed) staleSubjects.set(sensor.id, subject);
      if (stored) raised++;
    }
    this.fresh = fresh;
    this.staleSubjects = staleSubjects;
    return raised;
  }
}
