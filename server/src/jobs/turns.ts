/** A job waiting here for a slot. */
interface Waiter {
  id: string;
  accountId: number | null;
  /** A job that gave its slot away between cycles: it gets the next free slot. */
  resuming: boolean;
  grant: () => void;
  refuse: (reason: Error) => void;
}

/** Why a waiting job was sent away: the process is stopping. */
export class TurnsClosed extends Error {}

/**
 * The job slots of one process, handed out in turns across accounts: a free slot goes to a job
 * that gave its slot away between cycles, else to the longest-waiting job of an account holding
 * no slot, else to the longest-waiting job. A long job gives its slot to a waiting job of another
 * account before each cycle (`yieldTurn`), so that job starts at once and waits at most for the
 * cycle under way when it arrived.
 */
export class Turns {
  /** The account of each job holding a slot. */
  private holders = new Map<string, number | null>();
  private waiting: Waiter[] = [];
  private closed = false;

  constructor(private slots: number) {}

  /** Resolves once the job holds a slot; rejects with `TurnsClosed` when the process stops first. */
  take(id: string, accountId: number | null, resuming = false): Promise<void> {
    if (this.closed) return Promise.reject(new TurnsClosed('the job queue is closing'));
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

  /** Sends the jobs waiting to start away (they go back to their queue); yielded ones finish. */
  close(): void {
    this.closed = true;
    const leaving = this.waiting.filter((w) => !w.resuming);
    this.waiting = this.waiting.filter((w) => w.resuming);
    for (const w of leaving) w.refuse(new TurnsClosed('the job queue is closing'));
  }

  /** Of these waiting jobs, the one whose turn it is. */
  private nextOf(candidates: Waiter[]): Waiter | undefined {
    const busy = new Set(this.holders.values());
    return candidates.find((w) => w.resuming) ?? candidates.find((w) => w.accountId === null || !busy.has(w.accountId)) ?? candidates[0];
  }

  private grant(w: Waiter): void {
    this.waiting.splice(this.waiting.indexOf(w), 1);
    this.holders.set(w.id, w.accountId);
    w.grant();
  }

  private handOut(): void {
    for (let next = this.nextOf(this.waiting); next && this.holders.size < this.slots; next = this.nextOf(this.waiting)) this.grant(next);
  }
}
