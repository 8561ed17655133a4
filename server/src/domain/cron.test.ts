import { describe, expect, it } from 'vitest';
import { latestDueFrom } from './cron.ts';

const at = (iso: string) => Date.parse(iso);

describe('latestDueFrom', () => {
  it('takes the first due time while the one after it lies ahead, and says that one', () => {
    expect(latestDueFrom('* * * * *', 'UTC', at('2027-03-01T10:00:00Z'), at('2027-03-01T10:01:00Z'), at('2027-03-01T10:01:30Z'))).toEqual({
      dueMs: at('2027-03-01T10:01:00Z'),
      nextMs: at('2027-03-01T10:02:00Z'),
    });
    expect(
      latestDueFrom('*/15 * * * *', 'Europe/Amsterdam', at('2027-03-01T10:00:00Z'), at('2027-03-01T10:15:00Z'), at('2027-03-01T10:29:59Z')),
    ).toEqual({ dueMs: at('2027-03-01T10:15:00Z'), nextMs: at('2027-03-01T10:30:00Z') });
  });

  it('looks back from now when several due times passed, collapsing them into the latest', () => {
    expect(latestDueFrom('* * * * *', 'UTC', at('2027-03-01T10:00:00Z'), at('2027-03-01T10:01:00Z'), at('2027-03-01T10:03:10Z'))).toEqual({
      dueMs: at('2027-03-01T10:03:00Z'),
    });
  });

  it('leaves a run missed longer ago than the catch-up window', () => {
    expect(latestDueFrom('0 0 1 1 *', 'UTC', at('2026-12-31T00:00:00Z'), at('2027-01-01T00:00:00Z'), at('2027-03-01T00:00:00Z'))).toEqual({
      dueMs: null,
      nextMs: at('2028-01-01T00:00:00Z'),
    });
  });
});
