import { useEffect } from 'react';

/**
 * Asks again every `ms` while the page is open (and, with `active`, only while that holds).
 * @param reload what asks again, e.g. a `useApi` read's reload.
 */
export function usePolling(reload: () => void, ms: number, active = true) {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [reload, ms, active]);
}
