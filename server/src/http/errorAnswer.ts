import { treeOf, type AppError } from '../errors.ts';

/** What the HTTP chain answers for a refusal: a status, the reference's exact body, extra headers. */
export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * The one place a refusal becomes the reference's wire answer; its kind, message and field paths
 * are what every other edge reads. Keys keep the reference's order: clients compare bodies as text.
 */
export function errorAnswer(err: AppError): ErrorAnswer {
  const { wording: w, message, headers } = err;
  const answer = (status: number, body: Record<string, unknown>) => ({ status, body, headers });
  switch (w.shape) {
    case 'plain':
      return answer(w.status, { message, ...(err.detail !== undefined && { detail: err.detail }), status: w.status });
    case 'unauthorized':
      return answer(401, { message, status: 'UNAUTHORIZED' });
    case 'sender':
      return answer(403, { result: 'Rejected', status: 'INVALID_SENDER', message });
    case 'fields':
      return answer(422, { message: treeOf(err.fields ?? []), result: 'Rejected', status: 'UNPROCESSABLE_ENTITY' });
    case 'envelope':
      return answer(w.status, { [w.resultKey]: 'Rejected', status: w.statusName, message });
    case 'own':
      return answer(w.status, w.body);
  }
}
