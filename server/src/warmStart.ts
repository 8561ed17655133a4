import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { parseAwareDateTime } from './domain/time.ts';

/**
 * Loads on the main thread, once per process, what the first request would otherwise load while
 * it waits: tens to hundreds of milliseconds on a busy machine, which the first schedule after
 * a start should not pay.
 */
export function warmMainThread(): void {
  // luxon resolves the system locale and a time zone's rules on first use.
  parseAwareDateTime('2026-01-01T00:00:00+01:00');
  DateTime.fromMillis(0, { zone: 'Europe/Amsterdam' }).toISO();
  // Koa compares every response body with `Response`, a global that Node loads, together with
  // the rest of its fetch implementation, on first access.
  void globalThis.Response;
}

/**
 * Sends requests through the app on a throwaway loopback port, before the server's own port
 * opens: a schedule trigger with an unknown token, which the app answers 401 after parsing its
 * JSON body, matching its route and looking the token up. The first requests otherwise pay for
 * what those load and compile on first use (the body parser loads every text encoding it knows
 * for its decoder; the router's expressions, the reading connections' statements): 50–100 ms
 * before the first trigger reached its route in profiles at load 2.5–4. A failure here only
 * leaves that to the first request.
 * @param handler the app's request handler.
 */
export async function warmRequestPath(handler: http.RequestListener): Promise<void> {
  const probe = http.createServer(handler);
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', resolve);
    });
    const { port } = probe.address() as AddressInfo;
    // Twice: V8 runs a regular expression interpreted the first time and compiles it the second,
    // and the router tries every route's expression on every request.
    for (let i = 0; i < 2; i++) await warmRequest(port);
  } catch {
    // Nothing is lost but the warm-up (see above).
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

/** One warm-up request; resolves once its answer is read. */
function warmRequest(port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v3_0/sensors/1/schedules/trigger',
        headers: { 'Content-Type': 'application/json', Authorization: 'warm-start' },
      },
      (response) => response.resume().once('end', resolve),
    );
    request.once('error', reject);
    request.end('{}');
  });
}
