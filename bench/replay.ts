/**
 * "Would a battery pay?" on the real household (bench/_realSeries.ts): its measured load and PV
 * stored in a fresh store, then the battery replay (server/src/queries/batteryReplay.ts) over a
 * year with a 10 kWh / 5 kW battery (90 % round trip) and the time-of-use tariff of
 * docs/battery-replay.md. Prints cost without and with per month, savings per year, cycles and the
 * wall time. FLEXSITE_REPLAY_DAYS replays fewer days.
 */
import { household, KONSTANZ, realSeriesPresent, REAL_SERIES_DIR } from './_realSeries.ts';
import { replayBattery } from '../server/src/queries/batteryReplay.ts';
import { createWorkerPool } from '../server/src/workers/workerPool.ts';
import { factories } from '../test/helpers/factories.ts';
import { startTestServer } from '../test/helpers/testServer.ts';

if (!realSeriesPresent()) {
  console.log(`replay: skipped, no household series in ${REAL_SERIES_DIR}`);
  process.exit(0);
}
const days = Number(process.env.FLEXSITE_REPLAY_DAYS ?? 366);
const fromMs = Date.parse('2015-06-30T22:00:00Z'); // 2015-07-01 00:00 in Konstanz
const t = await startTestServer();
const pool = createWorkerPool(1, 1000);
const f = factories(t.db);
const account = await f.account();
const site = await f.asset({ accountId: account.id, name: 'Konstanz household' });
const { load, pv } = household();
const sensor = (name: string, attributes: Record<string, unknown>) =>
  f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 60, timezone: KONSTANZ.timezone, name, attributes });
const loadSensor = await sensor('house load', { consumption_is_positive: true });
const pvSensor = await sensor('solar panels', {});
// Measurements as recorded: each believed by the end of the series' first hour; the replay's bound is the event's start.
await f.beliefs(loadSensor.id, load.startMs, load.stepMs, Array.from(load.values), load.startMs + load.stepMs);
await f.beliefs(pvSensor.id, pv.startMs, pv.stepMs, Array.from(pv.values), pv.startMs + pv.stepMs);

const started = performance.now();
const result = await replayBattery(t.db, pool, {
  load: loadSensor,
  pv: pvSensor,
  battery: { capacityKwh: 10, powerKw: 5, roundTripEfficiency: 0.9 },
  tariff: {
    buying: {
      timezone: KONSTANZ.timezone,
      price: 300,
      periods: [
        { days: 'all', from: '23:00', to: '07:00', price: 200 },
        { days: 'weekdays', from: '17:00', to: '21:00', price: 420 },
      ],
    },
    feedInPrice: 80,
  },
  fromMs,
  toMs: fromMs + days * 86_400_000,
  location: KONSTANZ.location,
  country: KONSTANZ.country,
  onDay: (done, total) => {
    if (done % 30 === 0 || done === total) console.log(`day ${done}/${total}, ${Math.round((performance.now() - started) / 1000)} s`);
  },
});
const seconds = (performance.now() - started) / 1000;
const eur = (v: number) => v.toFixed(2).padStart(8);
console.log('\nmonth    | without EUR | with EUR | savings EUR | cycles');
for (const m of result.months)
  console.log(`${m.month}  | ${eur(m.costWithout)}    | ${eur(m.costWith)} | ${eur(m.savings)}    | ${m.cycles.toFixed(1)}`);
console.log(`total    | ${eur(result.costWithout)}    | ${eur(result.costWith)} | ${eur(result.savings)}    | ${result.cycles.toFixed(1)}`);
console.log(
  `\nsavings per year: ${result.savingsPerYear.toFixed(2)} EUR; ${result.cycles.toFixed(0)} cycles; ${result.days.length} days replayed in ${seconds.toFixed(0)} s`,
);
console.log(`hours without measurements: ${result.missingHours}; hours without a forecast: ${result.unforecastHours}`);
await pool.destroy();
await t.close();
