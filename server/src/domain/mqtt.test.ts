import { describe, expect, it } from 'vitest';
import { filtersOverlap, filterWithin, intervalMeans, readPayload, topicFilterProblem, topicMatches } from './mqtt.ts';

describe('MQTT topic filters (MQTT 3.1.1 §4.7)', () => {
  it('matches topics as the standard says', () => {
    expect(topicMatches('sport/tennis/player1/#', 'sport/tennis/player1')).toBe(true);
    expect(topicMatches('sport/tennis/player1/#', 'sport/tennis/player1/score/wimbledon')).toBe(true);
    expect(topicMatches('sport/+/player1', 'sport/tennis/player1')).toBe(true);
    expect(topicMatches('sport/+', 'sport/tennis/player1')).toBe(false);
    expect(topicMatches('+/+', '/finance')).toBe(true);
    expect(topicMatches('sport/tennis', 'sport/tennis/x')).toBe(false);
  });

  it('refuses malformed filters', () => {
    expect(topicFilterProblem('sport/tennis#')).toBeDefined();
    expect(topicFilterProblem('sport/#/ranking')).toBeDefined();
    expect(topicFilterProblem('sport+')).toBeDefined();
    expect(topicFilterProblem('$SYS/broker')).toBeDefined();
    expect(topicFilterProblem('shellies/+/emeter/0/power')).toBeUndefined();
  });

  it('tells overlapping and contained filters', () => {
    expect(filtersOverlap('a/+/c', 'a/b/#')).toBe(true);
    expect(filtersOverlap('a/b', 'a/c')).toBe(false);
    expect(filtersOverlap('a/b', 'a/b/c')).toBe(false);
    expect(filtersOverlap('#', 'x')).toBe(true);
    expect(filterWithin('flexsite/link-1/setpoint', 'flexsite/link-1/#')).toBe(true);
    expect(filterWithin('flexsite/+/setpoint', 'flexsite/link-1/#')).toBe(false);
    expect(filterWithin('flexsite/#', 'flexsite/link-1/#')).toBe(false);
  });
});

describe('reading payloads', () => {
  it('reads plain numbers and dotted JSON paths, never anything else', () => {
    expect(readPayload('1234.5', null, null)).toEqual({ value: 1234.5 });
    expect(readPayload('{"emeters":[{"power":-12}]}', 'emeters.0.power', null)).toEqual({ value: -12 });
    expect(readPayload('{"ENERGY":{"Power":"7"},"Time":"2026-01-05T12:00:02Z"}', 'ENERGY.Power', 'Time')).toEqual({
      value: 7,
      timeMs: Date.UTC(2026, 0, 5, 12, 0, 2),
    });
    expect(readPayload('{"p":1,"t":1767614400}', 'p', 't')).toEqual({ value: 1, timeMs: 1767614400000 });
    expect(readPayload('{"a":{"constructor":1}}', 'a.toString', null)).toEqual({ problem: 'no number at a.toString' });
    expect(readPayload('NaN', null, null)).toEqual({ problem: 'payload is not a number' });
    expect(readPayload('{"p":1,"t":"2026-01-05T12:00:00"}', 'p', 't')).toEqual({ problem: 'no time at t' });
  });
});

describe('interval means', () => {
  it('weighs each reading by how long it held, carrying the last one into the next interval', () => {
    // 10 s intervals: 100 for 0–4 s, 200 for 4–10 s (mean 160); 200 carries on until 12 s, then 0.
    const readings = [
      { timeMs: 0, value: 100 },
      { timeMs: 4000, value: 200 },
      { timeMs: 12_000, value: 0 },
    ];
    expect(intervalMeans(readings, 0, 20_000, 10_000, 60_000)).toEqual([
      { timeMs: 0, value: 160 },
      { timeMs: 10_000, value: 40 },
    ]);
  });

  it('does not let a silent device keep its last value beyond the hold', () => {
    expect(intervalMeans([{ timeMs: 0, value: 10 }], 0, 30_000, 10_000, 5000)).toEqual([{ timeMs: 0, value: 10 }]);
  });
});
