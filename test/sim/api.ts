/** The simulation's HTTP client: an operator or a device speaking to the server, nothing else. */

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many shapes, read by the simulation and checked there
  body: any;
}

export class Api {
  token = '';

  constructor(private readonly url: string) {}

  async request(method: string, path: string, options: { json?: unknown; query?: Record<string, string | number> } = {}): Promise<Answer> {
    const target = new URL(this.url + path);
    for (const [k, v] of Object.entries(options.query ?? {})) target.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.token) headers.Authorization = this.token;
    const res = await fetch(target, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  /** A request that must succeed: anything else ends the simulation with what the server said. */
  async must(method: string, path: string, options: { json?: unknown; query?: Record<string, string | number> } = {}): Promise<Answer> {
    const res = await this.request(method, path, options);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  }
}
