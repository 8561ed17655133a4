import { describe, expect, it } from 'vitest';
import { storageFlexModel } from '../../server/src/contracts/flexModel.ts';
import { parseIsoDuration, type IsoDuration } from '../../server/src/domain/time.ts';
import { parseFlex } from '../../server/src/scheduling/flexConfig/fields.ts';
import { checkResolution, horizonOf, maxPlanningMs } from '../../server/src/scheduling/flexConfig/horizon.ts';
import { socSpec, socUnitOf } from '../../server/src/scheduling/flexConfig/stateOfCharge.ts';
import { endWithTargets } from '../../server/src/scheduling/flexConfig/storageJob.ts';
import { asset, at, HOUR_MS, QUARTER_MS, refusal, resolving, sensor } from '../helpers/flexConfig.ts';

// The SoC rules as FlexMeasures documents them (flex-model schema, StorageScheduler): bare numbers
// are in the SoC unit, which a kW sensor makes kWh; soc-max falls back to the highest target;
// soc-at-start to a state of charge within four steps of the start. Values by hand: 1 MWh = 1000 kWh.

const ms = (iso: string) => at(iso).toMillis();
const duration = (text: string) => parseIsoDuration(text) as IsoDuration;

/** The SoC part of a device's spec for this flex-model, on a schedule from midnight of 1 June 2026 (UTC). */
const socOf = (model: Record<string, unknown>, fields: Parameters<typeof sensor>[0] = {}, start = '2026-06-01T00:00:00Z') =>
  socSpec(resolving(start, 4), { sensor: sensor(fields), asset: asset(), model: parseFlex(storageFlexModel, model) });

describe('the SoC unit', () => {
  it('is kWh for a kW sensor, MWh for an MW sensor, and as given when given', () => {
    expect(socUnitOf({}, { unit: 'kW' })).toBe('kWh');
    expect(socUnitOf({}, { unit: 'MW' })).toBe('MWh');
    expect(socUnitOf({ 'soc-unit': 'MWh' }, { unit: 'kW' })).toBe('MWh');
  });
});

describe('SoC bounds and constraints in MWh', () => {
  it('read bare numbers of a kW sensor as kWh: 12 kWh = 0.012 MWh, and windows from start and end', async () => {
    const soc = await socOf(
      {
        'soc-at-start': 12,
        'soc-min': 6,
        'soc-max': 60,
        'soc-targets': [{ value: 48, datetime: '2026-06-01T03:00:00Z' }],
        'soc-minima': [{ value: '0.01 MWh', start: '2026-06-01T01:00:00Z', end: '2026-06-01T02:00:00Z' }],
        'soc-maxima': [{ value: '55 kWh', start: '2026-06-01T02:00:00Z', duration: 'PT30M' }],
      },
      { unit: 'kW' },
    );
    expect(soc).toMatchObject({
      socAtStartMwh: expect.closeTo(0.012, 12),
      socMinMwh: expect.closeTo(0.006, 12),
      socMaxMwh: expect.closeTo(0.06, 12),
      socTargets: [{ valueMwh: expect.closeTo(0.048, 12), atMs: ms('2026-06-01T03:00:00Z') }],
      socMinima: [{ valueMwh: expect.closeTo(0.01, 12), startMs: ms('2026-06-01T01:00:00Z'), endMs: ms('2026-06-01T02:00:00Z') }],
      // 02:00 plus 30 minutes.
      socMaxima: [{ valueMwh: expect.closeTo(0.055, 12), startMs: ms('2026-06-01T02:00:00Z'), endMs: ms('2026-06-01T02:30:00Z') }],
      fromSocSensor: false,
    });
  });

  it('take soc-max from the highest target when not given, and refuse a device with neither', async () => {
    const targets = [
      { value: 30, datetime: '2026-06-01T02:00:00Z' },
      { value: 50, datetime: '2026-06-01T03:00:00Z' },
    ];
    // 50 kWh = 0.05 MWh; soc-min defaults to 0 and soc-at-start to 0.
    expect(await socOf({ 'soc-targets': targets }, { unit: 'kW' })).toMatchObject({
      socMaxMwh: expect.closeTo(0.05, 12),
      socMinMwh: 0,
      socAtStartMwh: 0,
    });
    expect(await refusal(() => socOf({ 'soc-at-start': 1 }))).toBe(
      'Need maximal permitted state of charge, please specify soc-max or some soc-targets.',
    );
  });

  it("fall back to the sensor's attributes, and its stored SoC only when stored for this very start", async () => {
    const attributes = { min_soc_in_mwh: 0.02, max_soc_in_mwh: 0.1, soc_in_mwh: 0.03, soc_datetime: '2026-06-01T00:00:00+00:00' };
    expect(await socOf({}, { attributes })).toMatchObject({ socMinMwh: 0.02, socMaxMwh: 0.1, socAtStartMwh: 0.03 });
    const storedEarlier = { ...attributes, soc_datetime: '2026-05-31T23:00:00+00:00' };
    expect(await socOf({}, { attributes: storedEarlier })).toMatchObject({ socAtStartMwh: 0 });
  });

  it('refuse a negative soc-min, a target beyond the longest horizon, and a window that ends before it starts', async () => {
    expect(await refusal(() => socOf({ 'soc-min': -1, 'soc-max': 10 }))).toEqual({ 'soc-min': ['Must be greater than or equal to 0.'] });
    // The helper's longest possible end is 48 hours after the start: 3 June 00:00 UTC.
    const late = { 'soc-max': 1, 'soc-targets': [{ value: 0.5, datetime: '2026-06-03T00:15:00Z' }] };
    expect(await refusal(() => socOf(late))).toEqual({
      'soc-targets': { 0: ['Target datetime exceeds the maximum planning horizon (2026-06-03T00:00:00.000Z).'] },
    });
    const reversed = { 'soc-max': 1, 'soc-minima': [{ value: 0.5, start: '2026-06-01T02:00:00Z', end: '2026-06-01T01:00:00Z' }] };
    expect(await refusal(() => socOf(reversed))).toMatch(/^Start .* cannot be after end .*\.$/);
  });
});

describe('soc-at-start from a state-of-charge series', () => {
  // Steps of 15 minutes: four steps either side of the start is one hour.
  const start = '2026-06-01T12:00:00Z';
  const series = (...segments: [number, string, string][]) => ({
    'soc-max': 100,
    'state-of-charge': segments.map(([value, from, to]) => ({ value, start: from, end: to })),
  });

  it('take the nearest segment within an hour, the later one on a tie', async () => {
    // 11:15 is 45 minutes before the start, 12:30 half an hour after: the latter is nearer (25 MWh).
    const nearer = series([20, '2026-06-01T10:00:00Z', '2026-06-01T11:15:00Z'], [25, '2026-06-01T12:30:00Z', '2026-06-01T13:00:00Z']);
    expect(await socOf(nearer, {}, start)).toMatchObject({ socAtStartMwh: 25 });
    // 11:30 and 12:30 are both half an hour away: the later segment wins.
    const tie = series([10, '2026-06-01T11:00:00Z', '2026-06-01T11:30:00Z'], [25, '2026-06-01T12:30:00Z', '2026-06-01T13:00:00Z']);
    expect(await socOf(tie, {}, start)).toMatchObject({ socAtStartMwh: 25 });
    // A segment containing the start is at distance 0.
    const containing = series([40, '2026-06-01T11:00:00Z', '2026-06-01T12:15:00Z'], [25, '2026-06-01T12:30:00Z', '2026-06-01T13:00:00Z']);
    expect(await socOf(containing, {}, start)).toMatchObject({ socAtStartMwh: 40 });
  });

  it('refuse a series with nothing within the hour, unless soc-at-start is given', async () => {
    // 10:45 is 75 minutes before the start; Python writes one hour as 1:00:00.
    const stale = series([20, '2026-06-01T10:00:00Z', '2026-06-01T10:45:00Z']);
    expect(await refusal(() => socOf(stale, {}, start))).toEqual({
      'state-of-charge': [expect.stringMatching(/^No recent state-of-charge value found within 1:00:00 of schedule start /)],
    });
    expect(await socOf({ ...stale, 'soc-at-start': 5 }, {}, start)).toMatchObject({ socAtStartMwh: 5 });
  });
});

describe('the schedule window on the grid', () => {
  const config = { maxPlanningHorizon: { steps: 96 }, planningHorizonMs: 12 * HOUR_MS };
  const start = at('2026-06-01T00:00:00Z');

  it('runs for the duration asked, else the default horizon, within 96 steps of 15 minutes (24 hours)', () => {
    expect(horizonOf(config, { start, duration: duration('PT6H') }, QUARTER_MS)).toEqual({
      startMs: start.toMillis(),
      endMs: start.toMillis() + 6 * HOUR_MS,
      stepMs: QUARTER_MS,
      maxEndMs: start.toMillis() + 24 * HOUR_MS,
    });
    expect(horizonOf(config, { start, resolution: duration('PT30M') }, QUARTER_MS)).toMatchObject({
      endMs: start.toMillis() + 12 * HOUR_MS,
      stepMs: 30 * 60_000,
    });
    expect(maxPlanningMs({ maxPlanningHorizon: { ms: 7 * 24 * HOUR_MS } }, QUARTER_MS)).toBe(7 * 24 * HOUR_MS);
  });

  it('refuses a duration beyond the longest horizon', async () => {
    expect(await refusal(() => horizonOf(config, { start, duration: duration('PT25H') }, QUARTER_MS))).toEqual({
      duration: ['Duration exceeds the maximum planning horizon of 96 steps.'],
    });
  });

  it('takes a resolution that is a whole multiple of the sensor resolution only', async () => {
    expect(() => checkResolution({ resolution: duration('PT30M') }, [{ event_resolution_ms: QUARTER_MS }])).not.toThrow();
    // Python writes ten minutes as 0:10:00.
    expect(await refusal(() => checkResolution({ resolution: duration('PT10M') }, [{ event_resolution_ms: QUARTER_MS }]))).toEqual({
      resolution: ["Resolution of 0:10:00 is incompatible with the sensor's required resolution of 0:15:00."],
    });
  });

  it('extends the end to the grid point at or after the latest SoC target', async () => {
    const horizon = {
      startMs: start.toMillis(),
      endMs: start.toMillis() + 4 * HOUR_MS,
      stepMs: QUARTER_MS,
      maxEndMs: start.toMillis() + 24 * HOUR_MS,
    };
    // 05:10 is 310 minutes after the start: 21 steps of 15 minutes (315 minutes) reach it, so the end is 05:15.
    expect(endWithTargets(horizon, [{ socTargets: [{ valueMwh: 1, atMs: ms('2026-06-01T05:10:00Z') }] }])).toBe(ms('2026-06-01T05:15:00Z'));
    // A target within the window leaves the end as asked.
    expect(endWithTargets(horizon, [{ socTargets: [{ valueMwh: 1, atMs: ms('2026-06-01T03:00:00Z') }] }])).toBe(horizon.endMs);
    // A window of ten minutes holds no step of fifteen.
    const short = { ...horizon, endMs: horizon.startMs + 10 * 60_000 };
    expect(await refusal(() => endWithTargets(short, [{ socTargets: [] }]))).toEqual({
      duration: ['The schedule must cover at least one step of the sensor resolution.'],
    });
  });
});
