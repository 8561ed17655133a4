import type { z } from 'zod';
import { ApiError } from './errors.ts';

/** Everything the UI asks lives under this prefix; the server serves the UI itself at `/`. */
export const API = '/api/v3_0';

let token: string | null = null;
let onUnauthorized: (() => void) | null = null;

/**
 * Sets the token sent with every request, and what happens when the server no longer accepts it.
 * @param value the token, or null when signed out.
 * @param expired called on a 401 to a request that carried a token.
 */
export function setToken(value: string | null, expired: (() => void) | null): void {
  token = value;
  onUnauthorized = expired;
}

export interface RequestOptions<T = unknown> {
  /** The answer's contract (`api/contracts.ts`): it types the answer and, in development, checks it. */
  answer?: z.ZodType<T>;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  signal?: AbortSignal;
  /** Error statuses whose body is still the answer wanted (a failed job is a 422 in FlexMeasures 1.0 words). */
  accept?: number[];
}

/**
 * The URL of an API path with its query string.
 * @param path a path under `/api`, e.g. `/api/v3_0/assets`.
 * @param query parameters; empty ones are left out.
 * @returns the URL text.
 */
export function apiUrl(path: string, query: RequestOptions['query'] = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The headers of an authenticated request. */
export function authHeaders(): Record<string, string> {
  return token ? { Authorization: token } : {};
}

/**
 * Calls the API and decodes its JSON answer.
 * @param path a path under `/api`.
 * @param options method, JSON body, query and abort signal.
 * @returns the decoded body; throws an ApiError for any non-2xx answer.
 */
export async function request<T>(path: string, options: RequestOptions<T> = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let res: Response;
  try {
    res = await fetch(apiUrl(path, options.query), { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, { message: 'The Flexsite server cannot be reached. Is it running?' });
  }
  const text = await res.text();
  const decoded = decode(text);
  if (!res.ok && !options.accept?.includes(res.status)) {
    const error = new ApiError(res.status, decoded);
    if (res.status === 401 && headers.Authorization) onUnauthorized?.();
    throw error;
  }
  if (import.meta.env.DEV && options.answer && res.ok) checkAnswer(path, options.answer, decoded);
  return decoded as T;
}

/** In development, an answer that breaks its contract fails loudly, so UI and server cannot drift apart. */
function checkAnswer(path: string, answer: z.ZodType, decoded: unknown): void {
  const checked = answer.safeParse(decoded);
  if (!checked.success) throw new Error(`The answer of ${path} breaks its contract: ${checked.error.message}`);
}

/**
 * Sends a file as a multipart form, reporting upload progress (fetch cannot).
 * @param path the upload endpoint.
 * @param form the form, files included.
 * @param progress called with the fraction sent so far.
 * @returns the decoded answer; throws an ApiError for any non-2xx answer.
 */
export function upload<T>(path: string, form: FormData, progress: (fraction: number) => void, answer?: z.ZodType<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, { message: 'The upload did not reach the server.' }));
    xhr.onload = () => {
      const decoded = decode(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) {
        if (import.meta.env.DEV && answer) checkAnswer(path, answer, decoded);
        return resolve(decoded as T);
      }
      if (xhr.status === 401) onUnauthorized?.();
      reject(new ApiError(xhr.status, decoded));
    };
    xhr.send(form);
  });
}

function decode(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}
