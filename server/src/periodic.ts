import type { Clock } from './clock.ts';

/**
 * Work the server does by the clock (automation runs, tariff and toy prices, stale-sensor checks),
 * each a subclass giving its `work`: run at start, then every interval, never two runs at a time
 * (an overlapping run would only find the same work), and a failed run is reported instead of
 * ending the server. `stop()` waits for a run in progress, so the store is not closed under it.
 */
export abstract class Periodic {
  private stopTimer: (() => void) | undefined;
  private running: Promise<number> | undefined;

  /**
   * @param intervalMs time between runs.
   * @param onError where a failed run is reported (it then counts as 0).
   * @param clock the server's clock: runs are set off by it, at its time.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    protected readonly clock: Clock,
  ) {}

  /** One run at `nowMs`; answers how many things it did. */
  protected abstract work(nowMs: number): Promise<number>;

  start(): void {
    this.stopTimer = this.clock.every(this.intervalMs, () => this.tick(this.clock.now()));
  }

  /** One run at `nowMs` (the clock's own time in production; any time in tests), after any run in progress. */
  async tick(nowMs: number): Promise<number> {
    await this.running;
    this.running = this.work(nowMs).catch((err: unknown) => {
      this.onError(err);
      return 0;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopTimer?.();
    await this.running;
  }
}
