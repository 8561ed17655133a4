/**
 * Where the server reads the time and sets off its periodic work. The server is given one when it
 * starts: the system's in production; a simulated one in tests and the site simulation, which
 * run days of operation without waiting for them.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Calls `work` now and then every `intervalMs`.
   * @returns a function that stops it.
   */
  every(intervalMs: number, work: () => Promise<unknown>): () => void;
}

/** The system's clock; its timers do not hold the process open. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(intervalMs, work) {
    void work();
    const timer = setInterval(() => void work(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface SimulatedTimer {
  dueMs: number;
  intervalMs: number;
  work: () => Promise<unknown>;
}

/**
 * A clock that stands still until it is advanced. Advancing runs the timers that fall due on the
 * way, in the order of their due times (at equal times in the order they were set), each at its
 * due time, and after each that did something waits until the work it set off is done
 * (`settleWith`: the job queue drained), so that every job sees the time it was due at. What is due at the time the
 * clock stops at runs when it moves on, or at `runDue()`: a simulated device acts at that time
 * first (posts its measurements), and the server's work of that time sees what it did.
 */
export class SimulatedClock implements Clock {
  private timers: SimulatedTimer[] = [];
  private settlers: (() => Promise<void>)[] = [];

  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  every(intervalMs: number, work: () => Promise<unknown>): () => void {
    const timer = { dueMs: this.nowMs, intervalMs, work };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** After each tick, waits for `wait` too: the work the tick set off finishing. */
  settleWith(wait: () => Promise<void>): void {
    this.settlers.push(wait);
  }

  /** Waits until the work set off so far is done. */
  async settle(): Promise<void> {
    for (const wait of this.settlers) await wait();
  }

  /** Runs the timers due before `untilMs` (with `inclusive`, at it too), each at its due time. */
  private async runTimers(untilMs: number, inclusive: boolean): Promise<void> {
    for (;;) {
      const next = this.timers.reduce<SimulatedTimer | undefined>((a, t) => (a && a.dueMs <= t.dueMs ? a : t), undefined);
      if (!next || next.dueMs > untilMs || (!inclusive && next.dueMs === untilMs)) return;
      this.nowMs = Math.max(this.nowMs, next.dueMs);
      next.dueMs += next.intervalMs;
      // Periodic work answers how many things it did: a tick that did nothing set nothing off to
      // wait for (a simulated week runs some 200,000 such ticks, each a look at the job queue).
      if ((await next.work()) !== 0) await this.settle();
    }
  }

  /** Runs what is due now, and waits for the work it sets off. */
  async runDue(): Promise<void> {
    await this.runTimers(this.nowMs, true);
    await this.settle();
  }

  /** Moves the clock to `targetMs` (never back), running the timers due before it on the way. */
  async advanceTo(targetMs: number): Promise<void> {
    await this.runTimers(targetMs, false);
    this.nowMs = Math.max(this.nowMs, targetMs);
    await this.settle();
  }

  /** Moves the clock on by `ms`, running the timers due before then. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.nowMs + ms);
  }
}
