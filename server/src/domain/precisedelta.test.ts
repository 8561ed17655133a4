import { describe, expect, it } from 'vitest';
import { precisedelta } from './precisedelta.ts';

const H = 3_600_000;

describe('precisedelta', () => {
  // The durations of FlexMeasures' status reasons (test_sensor_data_schema.py).
  it.each([
    [10 * H, '10 hours'],
    [25 * H, '1 day and 1 hour'],
    [22 * H, '22 hours'],
    [24 * H, '1 day'],
    [48 * H, '2 days'],
    [30 * 60_000, '30 minutes'],
    [H + 60_000 + 1500, '1 hour, 1 minute and 1.50 seconds'],
    [0, '0 seconds'],
  ])('%d ms is "%s"', (ms, text) => expect(precisedelta(ms)).toBe(text));
});
