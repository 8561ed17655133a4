import { describe, expect, it } from 'vitest';
import { fieldError, forbidden, httpError, notFound } from '../errors.ts';
import { failureOf } from './jobTable.ts';

/** A refusal thrown below the edges lands in a job by its kind, whatever status the API would answer. */
describe('a failed job records a domain refusal by its kind', () => {
  it('refused, invalid, not found: the failure names the reference reports, the message in words', () => {
    expect(failureOf(forbidden())).toEqual({
      error: 'PermissionDenied: You cannot be authorized for this content or functionality.',
      error_kind: 'forbidden',
    });
    expect(failureOf(fieldError('json', 'soc-min', 'Must be at least 0.'))).toEqual({
      error: 'ValueError: soc-min: Must be at least 0.',
      error_kind: 'invalid-input',
    });
    expect(failureOf(notFound('No sensor with id 7.'))).toEqual({ error: 'LookupError: No sensor with id 7.', error_kind: 'not-found' });
    expect(failureOf(httpError(409, 'Already running.'))).toEqual({ error: 'ConflictError: Already running.', error_kind: 'conflict' });
  });

  it("an edge's own failure (an internal 500) is internal, its text kept from people", () => {
    expect(failureOf(httpError(500, 'An internal error has occurred.'))).toEqual({
      error: 'InternalError: the job failed unexpectedly; the server log has the details.',
      error_kind: 'internal',
    });
  });
});
