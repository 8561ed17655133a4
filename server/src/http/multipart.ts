import { httpError, malformedJson } from '../errors.ts';
import type { AppContext } from './context.ts';

/**
 * Reads a `multipart/form-data` body with the runtime's own parser (undici's `FormData`).
 * @param ctx the request.
 * @param limitBytes the largest body accepted; beyond it the answer is 413.
 * @returns the form, or undefined when the request is not a form upload.
 */
export async function readFormData(ctx: AppContext, limitBytes: number): Promise<FormData | undefined> {
  if (!ctx.is('multipart/form-data')) return undefined;
  const tooLarge = () => httpError(413, 'The data value transmitted exceeds the capacity limit.');
  if (Number(ctx.get('Content-Length') || 0) > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return await new Response(Buffer.concat(chunks), { headers: { 'content-type': ctx.get('Content-Type') } }).formData();
  } catch {
    // Werkzeug's generic 400 wording, as for a body that is not valid JSON.
    throw malformedJson();
  }
}
