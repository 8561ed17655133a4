import { malformedJson } from '../errors.ts';
import type { AppContext } from './context.ts';
import { readRawBody } from './rawBody.ts';

/**
 * Reads a `multipart/form-data` body with the runtime's own parser (undici's `FormData`).
 * @param ctx the request.
 * @param limitBytes the largest body accepted; beyond it the answer is 413.
 * @returns the form, or undefined when the request is not a form upload.
 */
export async function readFormData(ctx: AppContext, limitBytes: number): Promise<FormData | undefined> {
  if (!ctx.is('multipart/form-data')) return undefined;
  const body = await readRawBody(ctx, limitBytes);
  try {
    return await new Response(body, { headers: { 'content-type': ctx.get('Content-Type') } }).formData();
  } catch {
    // Werkzeug's generic 400 wording, as for a body that is not valid JSON.
    throw malformedJson();
  }
}
