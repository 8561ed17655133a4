import { describe, expect, it } from 'vitest';
import { ApiError, flattenFields, messageOf } from '../../renderer/src/api/errors.ts';

describe('API errors in the UI', () => {
  it('keeps 422 field messages per field, nested ones under dotted paths', () => {
    const err = new ApiError(422, {
      message: { json: { 'soc-min': ['Not a valid number.'], 'soc-targets': { '0': { value: ['Missing data for required field.'] } } } },
      result: 'Rejected',
      status: 'UNPROCESSABLE_ENTITY',
    });
    expect(err.fields).toEqual({ 'soc-min': ['Not a valid number.'], 'soc-targets.0.value': ['Missing data for required field.'] });
    expect(err.message).toBe('soc-min: Not a valid number. soc-targets.0.value: Missing data for required field.');
  });

  it('reads every error shape of the API as a sentence, never [object Object]', () => {
    const shapes: [unknown, string][] = [
      [
        { message: { json: 'Need maximal permitted state of charge, please specify soc-max or some soc-targets.' } },
        'Need maximal permitted state of charge, please specify soc-max or some soc-targets.',
      ],
      [{ errors: ['User password does not match.'], status: 401 }, 'User password does not match.'],
      [{ errors: ['Too many login attempts. Try again in 42 seconds.'], status: 429 }, 'Too many login attempts. Try again in 42 seconds.'],
      [
        { message: 'Duplicate user already exists', detail: 'email a@b.c is taken', status: 400 },
        'Duplicate user already exists: email a@b.c is taken',
      ],
      [{ message: { json: { _schema: ['Resolution of 0:05:00 is incompatible.'] } } }, 'Resolution of 0:05:00 is incompatible.'],
      [undefined, 'The server answered 500.'],
      [
        { message: { form: { 'uploaded-files': { '0': ['Invalid content in file: x.csv.'] } } } },
        'uploaded-files.0: Invalid content in file: x.csv.',
      ],
    ];
    for (const [body, text] of shapes) {
      const err = new ApiError(body === undefined ? 500 : 422, body);
      expect(err.message).toBe(text);
      expect(messageOf(err)).not.toContain('[object');
    }
    expect(messageOf({ odd: true })).toBe('{"odd":true}');
  });

  it('flattens top-level lists under _schema', () => {
    expect(flattenFields(['a', 'b'])).toEqual({ _schema: ['a', 'b'] });
  });
});
