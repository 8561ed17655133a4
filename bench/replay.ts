/**
 * "Would a battery pay?" on the real household (bench/_householdSite.ts): its measured load and PV
 * stored in a fresh store, then the battery replay (server/src/queries/batteryReplay.ts) over a
 * year with three sizes side by side (5 kWh / 2.5 kW, 10 / 5, 15 / 7.5, 90 % round trip) and the
 * time-of-use tariff of docs/battery-replay.md. Prints cost without and with each size per month,
 * savings per year, cycles and the wall time. FLEXSITE_REPLAY_DAYS replays fewer days.
 */
import { storeHousehold } from './_householdSite.ts';
import { KONSTANZ, realSeriesPresent, REAL_SERIES_DIR } from './_realSeries.ts';
import { replayBatteries, timeOfUsePrices } from '../server/src/queries/batteryReplay.ts';
import { createWorkerPool } from '../server/src/workers/workerPool.ts';
import { startTestServer } from '../test/helpers/testServer.ts';
import { loadavg } from 'node:os';

if (!realSeriesPresent()) {
  console.log(`replay: skipped, no household series in ${REAL_SERIES_DIR}`);
  process.exit(0);
}
const days = Number(process.env.FLEXSITE_REPLAY_DAYS ?? 366);
const fromMs = Date.parse('2015-06-30T22:00:00Z'); // 2015-07-01 00:00 in Konstanz
const sizes = [
  { capacityKwh: 5, powerKw: 2.5, roundTripEfficiency: 0.9 },
  { capacityKwh: 10, powerKw: 5, roundTripEfficiency: 0.9 },
  { capacityKwh: 15, powerKw: 7.5, roundTripEfficiency: 0.9 },
];
const t = await startTestServer();
const pool = createWorkerPool(1, 1000);
const { loadSensor, pvSensor } = await storeHousehold(t.db);

const load = () => loadavg()[0].toFixed(1);
console.log(`load average at the start: ${load()}`);
const started = performance.now();
const result = await replayBatteries(t.db, pool, {
  load: loadSensor,
  pv: pvSensor,
  batteries: sizes,
  prices: timeOfUsePrices({
    buying: {
      timezone: KONSTANZ.timezone,
      price: 300,
      periods: [
        { days: 'all', from: '23:00', to: '07:00', price: 200 },
        { days: 'weekdays', from: '17:00', to: '21:00', price: 420 },
      ],
    },
    feedInPrice: 80,
  }),
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
const names = result.batteries.map((b) => `${b.battery.capacityKwh} kWh/${b.battery.powerKw} kW`);
console.log(`\nmonth    | without  | ${names.map((n) => `with ${n}`.padEnd(22)).join(' | ')}`);
result.months.forEach((m, i) => {
  const cells = result.batteries.map((b) => `${eur(b.months[i].costWith)} (${b.months[i].cycles.toFixed(1)} cyc)`.padEnd(22));
  console.log(`${m.month}  | ${eur(m.costWithout)} | ${cells.join(' | ')}`);
});
console.log(
  `total    | ${eur(result.costWithout)} | ${result.batteries.map((b) => `${eur(b.costWith)} (${b.cycles.toFixed(1)} cyc)`.padEnd(22)).join(' | ')}`,
);
for (const [i, b] of result.batteries.entries()) {
  console.log(`${names[i]}: saves ${b.savings.toFixed(2)} EUR, ${b.savingsPerYear.toFixed(2)} EUR per year, ${b.cycles.toFixed(0)} cycles`);
}
console.log(`\n${result.dayCount} days replayed with ${sizes.length} sizes in ${seconds.toFixed(0)} s; load average at the end: ${load()}`);
console.log(
  `hours without measurements: ${result.missingHours}; without a forecast: ${result.unforecastHours}; priced before known: ${result.unpricedHours}`,
);
await pool.destroy();
await t.close();
