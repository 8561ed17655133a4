import { useCallback, useState } from 'react';
import { ApiError, type FieldMessages } from '../api/errors.ts';

export interface Submit {
  /** Whether a submit is under way (its button is disabled meanwhile). */
  busy: boolean;
  /** Why the last submit failed, or null. */
  error: unknown;
  /** Whether the last submit went through. */
  saved: boolean;
  /** The field messages of a refused submit (a 422 answer), to show next to their inputs. */
  fields: FieldMessages;
  /** Runs a submit: clears the last outcome, then records this one. @returns whether it went through. */
  run: (action: () => Promise<unknown>) => Promise<boolean>;
  /** Forgets the last outcome (a new attempt is being prepared). */
  reset: () => void;
}

/** The state every form's submit goes through: busy while it runs, then saved or its error. */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const reset = useCallback(() => {
    setError(null);
    setSaved(false);
  }, []);
  const run = useCallback(
    async (action: () => Promise<unknown>) => {
      reset();
      setBusy(true);
      try {
        await action();
        setSaved(true);
        return true;
      } catch (err) {
        setError(err);
        return false;
      } finally {
        setBusy(false);
      }
    },
    [reset],
  );
  const fields = error instanceof ApiError ? error.fields : {};
  return { busy, error, saved, fields, run, reset };
}
