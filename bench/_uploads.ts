import fs from 'node:fs';
import http from 'node:http';

/** Sensor-data uploads as the data-path benches send them (bench/run.ts skips files starting with `_`). */

/**
 * Bodies of uploads of one day each, on consecutive days. Built before the clock starts: the
 * client shares the CPU with the server.
 * @param count how many bodies.
 * @param values how many values in each (spread over the day).
 * @param firstDayMs the start of the first body's day.
 * @param value the next value to send.
 */
export function dayUploads(count: number, values: number, firstDayMs: number, value: () => number): Buffer[] {
  return Array.from({ length: count }, (_, k) =>
    Buffer.from(
      JSON.stringify({
        values: Array.from({ length: values }, value),
        start: new Date(firstDayMs + k * 86_400_000).toISOString(),
        duration: 'PT24H',
        unit: 'kW',
      }),
    ),
  );
}

/**
 * Posts uploads to `POST /api/v3_0/sensors/<id>/data` with plain http over kept-alive
 * connections, which costs the client far less per request than fetch does.
 * @param headers the request headers (authorization and content type).
 * @param maxSockets connections at the most.
 * @returns `post`, answering the status (rejecting on a connection error), and `close`.
 */
export function dataPoster(url: string, headers: Record<string, string>, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(url);
  const post = (sensorId: number, body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method: 'POST',
          path: `/api/v3_0/sensors/${sensorId}/data`,
          headers: { ...headers, 'Content-Length': body.length },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

// USER_HZ, 100 on every Linux kernel Node runs on.
const TICKS_PER_SECOND = 100;

/**
 * The CPU time a process has used, all its threads (Linux: /proc), in ms; NaN where unknown.
 * @param pid the process.
 */
export function cpuMs(pid: number | undefined): number {
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name: user and system time in ticks.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
