import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { HAND_WORKED, handWorkedSite } from '../helpers/replaySite.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Each command is a fresh Node process over the test server's store (as in cli.test.ts).
vi.setConfig({ testTimeout: 180_000 });

let t: TestServer;
let site: Awaited<ReturnType<typeof handWorkedSite>>;

beforeAll(async () => {
  t = await startTestServer();
  site = await handWorkedSite(t.db);
}, 60_000);
afterAll(() => t.close());

const cli = (args: string[], json = true) => runCli([...(json ? ['--json'] : []), ...args], { FLEXSITE_DATA_DIR: t.dataDir });
/** The hand-worked case (test/helpers/replaySite.ts) as options: a lossless 10 kWh / 5 kW, 0.10 from 00:00 to 06:00, else 0.30. */
const handWorked = ['replay', 'battery', '--asset', '', '--size', '10/5/1', '--start', HAND_WORKED.start, '--end', HAND_WORKED.end];
const args = (...more: string[]) => {
  const out = [...handWorked, ...more];
  out[3] = String(site.site.id);
  return out;
};
const timeOfUse = ['--tariff', 'time-of-use', '--price', '0.3', '--period', '00:00-06:00=0.1', '--feed-in', '0'];

describe('replay battery', () => {
  it('replays the hand-worked case with progress lines, and prints the report', async () => {
    const run = await cli(args(...timeOfUse));
    expect(run.code, run.stderr).toBe(0);
    // Not a terminal: plain progress lines on stderr, one per day here (a twentieth of two days rounds to one).
    expect(run.stderr).toContain('replayed 1/2 days');
    expect(run.stderr).toContain('replayed 2/2 days');
    const result = lastJsonLine(run.stdout);
    expect(result).toMatchObject({ days: 2, cost_without: HAND_WORKED.costWithout, warnings: [] });
    expect(result.sizes[0]).toMatchObject({
      cost_with: HAND_WORKED.costWith,
      savings: HAND_WORKED.savings,
      savings_per_year: HAND_WORKED.savingsPerYear,
      cycles: HAND_WORKED.cycles,
    });
    // Read only: the command line queues no job.
    expect(await t.db('job').where({ queue: 'battery-replay' })).toHaveLength(0);
  });

  it('prints the report as a table for people, with a day-ahead price series', async () => {
    const run = await cli(args('--tariff', 'day-ahead', '--price-sensor', String(site.priceSensor.id), '--feed-in', '0'), false);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2026-03\s+12\.00\s+8\.00 \(2 cycles\)/);
    expect(run.stdout).toContain('10 kWh/5 kW: saves 4.00 EUR, 730.00 EUR per year, 2 cycles');
  });

  it("keeps the account rule as the operator: another account's price sensor is refused", async () => {
    const run = await cli(args('--tariff', 'day-ahead', '--price-sensor', String(site.foreignPrice.id)));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stdout).toBe('');
  });

  it('refuses bad input with the field at fault', async () => {
    const bad = await cli([
      'replay',
      'battery',
      '--asset',
      String(site.site.id),
      '--size',
      '10',
      '--start',
      '2026-03-02',
      '--end',
      '2026-03-04',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--size "10" is not kWh/kW');
    const order = await cli(args(...timeOfUse).map((a) => (a === HAND_WORKED.end ? '2026-03-01' : a)));
    expect(order.code).toBe(1);
    expect(order.stderr).toContain('Must be after start.');
  });
});
