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
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: path !== null });
  const [generation, setGeneration] = useState(0);
  const queryKey = JSON.stringify(query ?? {});

  useEffect(() => {
    if (path === null) {
      setState({ loading: false });
      return;
    }
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    const options = { query: JSON.parse(queryKey) as RequestOptions['query'], signal: abort.signal };
    (typeof answer === 'function' ? answer(path, options) : request(path, { ...options, answer })).then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => {
        if (abort.signal.aborted) return;
        setState({ error: error instanceof ApiError ? error : new ApiError(0, { message: String(error) }), loading: false });
      },
    );
    return () => abort.abort();
  }, [path, queryKey, generation, answer]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
