/** A job waiting here for a slot. */
interface Waiter {
  id: string;
  accountId: number | null;
  /** A job that gave its slot away between cycles: it gets the next free slot. */
  resuming: boolean;
  grant: () => void;
  refuse: (reason: Error) => void;
}

/** Why a waiting job was sent away (back to its queue): the process is stopping, or another account's job should come in. */
export class SentBack extends Error {}

/**
 * The job slots of one process, handed out in turns across accounts: a free slot goes to a job
 * that gave its slot away between cycles, else to the longest-waiting job of an account holding
 * no slot, else to the longest-waiting job. A long job gives its slot to a waiting job of another
 * account before each cycle (`yieldTurn`), so that job starts at once and waits at most for the
 * cycle under way when it arrived. With every slot taken, a spare slot still goes to a job of an
 * account holding none (see `SPARE_SLOTS`).
 */
export class Turns {
  /** The account of each job holding a slot. */
  private holders = new Map<string, number | null>();
  private waiting: Waiter[] = [];
  private closed = false;

  constructor(
    private slots: number,
    private spare = 0,
  ) {}

  /** Resolves once the job holds a slot; rejects with `SentBack` when it is sent back to its queue first. */
  take(id: string, accountId: number | null, resuming = false): Promise<void> {
    if (this.closed) return Promise.reject(new SentBack('the job queue is closing'));
    return new Promise<void>((grant, refuse) => {
      this.waiting.push({ id, accountId, resuming, grant, refuse });
      this.handOut();
    });
  }

  /** The job ended: its slot goes to the next in turn. */
  leave(id: string): void {
    this.holders.delete(id);
    this.handOut();
  }

  /**
   * Between two cycles of a running job: when a job of another account waits, it gets this job's
   * slot now, and this job continues once a slot is free again.
   */
  async yieldTurn(id: string, accountId: number | null): Promise<void> {
    if (!this.holders.has(id)) return;
    const next = this.nextOf(this.waiting.filter((w) => !w.resuming && w.accountId !== accountId));
    if (!next) return;
    this.holders.delete(id);
    this.grant(next);
    await new Promise<void>((grant, refuse) => this.waiting.push({ id, accountId, resuming: true, grant, refuse }));
  }

  /** Sends the jobs waiting to start back to their queue; yielded ones finish. */
  close(): void {
    this.closed = true;
    this.sendBack(() => true, 'the job queue is closing');
  }

  /**
   * Whether a job of the account waits to start here while no other account's does: then it
   * may stand in the way of another account's job that the queue has not handed out yet.
   */
  onlyOwnWaiting(accountId: number | null): boolean {
    const starting = this.waiting.filter((w) => !w.resuming);
    return starting.length > 0 && starting.every((w) => w.accountId === accountId);
  }

  /** Sends the jobs of the account waiting to start back to their queue, to make room for another account's. */
  sendBackOf(accountId: number | null): void {
    this.sendBack((w) => w.accountId === accountId, "another account's job is waiting");
  }

  private sendBack(which: (w: Waiter) => boolean, reason: string): void {
    const leaving = this.waiting.filter((w) => !w.resuming && which(w));
    this.waiting = this.waiting.filter((w) => !leaving.includes(w));
    for (const w of leaving) w.refuse(new SentBack(reason));
  }

  /** Of these waiting jobs, the one whose turn it is. */
  private nextOf(candidates: Waiter[]): Waiter | undefined {
    return candidates.find((w) => w.resuming) ?? this.freshOf(candidates) ?? candidates[0];
  }

  /** The longest-waiting job to start of an account holding no slot. */
  private freshOf(candidates: Waiter[]): Waiter | undefined {
    const busy = new Set(this.holders.values());
    return candidates.find((w) => !w.resuming && (w.accountId === null || !busy.has(w.accountId)));
  }

  private grant(w: Waiter): void {
    this.waiting.splice(this.waiting.indexOf(w), 1);
    this.holders.set(w.id, w.accountId);
    w.grant();
  }

  private handOut(): void {
    for (;;) {
      const size = this.holders.size;
      const next = size < this.slots ? this.nextOf(this.waiting) : size < this.slots + this.spare ? this.freshOf(this.waiting) : undefined;
      if (!next) return;
      this.grant(next);
    }
  }
}
