import { useCallback, useEffect, useState } from 'react';
import type { z } from 'zod';
import { request, type RequestOptions } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Fetches again, keeping the current data on screen meanwhile. */
  reload: () => void;
}

/**
 * Reads an API path, again whenever the path or query changes; stale answers are dropped.
 * @param path the path, or null to read nothing (yet).
 * @param query query parameters.
 * @param answer the answer's contract, or how to read it when an answer needs more than decoding (jobs).
 * @returns the data, error and loading state.
 */
export function useApi<T>(
  path: string | null,
  query: RequestOptions['query'] | undefined,
  answer: z.ZodType<T> | ((path: string, options: RequestOptions) => Promise<T>),
): Loaded<T> {
  const [generation, setGeneration] = useState(0);
  const queryKey = JSON.stringify(query ?? {});
  // Each answer remembers which request it answers: loading means the latest request has no answer yet,
  // and the previous answer stays on screen meanwhile.
  const key = path === null ? null : JSON.stringify([path, queryKey, generation]);
  const [state, setState] = useState<{ key?: string; data?: T; error?: ApiError }>({});

  useEffect(() => {
    if (path === null) return;
    const answered = JSON.stringify([path, queryKey, generation]);
    const abort = new AbortController();
    const options = { query: JSON.parse(queryKey) as RequestOptions['query'], signal: abort.signal };
    (typeof answer === 'function' ? answer(path, options) : request(path, { ...options, answer })).then(
      (data) => setState({ key: answered, data }),
      (error: unknown) => {
        if (abort.signal.aborted) return;
        setState({ key: answered, error: error instanceof ApiError ? error : new ApiError(0, { message: String(error) }) });
      },
    );
    return () => abort.abort();
  }, [path, queryKey, generation, answer]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  if (key === null) return { data: undefined, error: undefined, loading: false, reload };
  return { data: state.data, error: state.error, loading: state.key !== key, reload };
}
