/**
 * Waits until a Flexsite server answers its readiness check (`/api/v3_0/health/ready`), which
 * only succeeds once the store answers.
 * @param baseUrl the server's address, e.g. http://127.0.0.1:5000.
 * @param options how long to keep trying and how long to pause between attempts.
 * @throws Error naming the last failure when the server is not ready in time.
 */
export async function waitForReady(baseUrl: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/api/v3_0/health/ready`, { signal: AbortSignal.timeout(Math.min(5000, timeoutMs)) });
      await res.body?.cancel();
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    }
    if (Date.now() + intervalMs > deadline) throw new Error(`Flexsite at ${baseUrl} was not ready after ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
