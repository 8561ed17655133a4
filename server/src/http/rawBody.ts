import { httpError } from '../errors.ts';
import type { AppContext } from './context.ts';

/**
 * Reads a request body that the body parser left alone (form uploads, bodies of GETs).
 * @param ctx the request.
 * @param limitBytes the largest body accepted; beyond it the answer is 413.
 * @returns the bytes (empty when there is no body).
 */
export async function readRawBody(ctx: AppContext, limitBytes: number): Promise<Buffer<ArrayBuffer>> {
  const tooLarge = () => httpError(413, 'The data value transmitted exceeds the capacity limit.');
  if (Number(ctx.get('Content-Length') || 0) > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
