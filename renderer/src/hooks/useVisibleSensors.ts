import { useEffect, useState } from 'react';
import { API, request } from '../api/client.ts';
import type { Sensor } from '../api/types.ts';
import * as wire from '../api/contracts.ts';

/**
 * The sensors a user can pick from in forms (price sensors, inflexible devices): those of
 * their account and those on public assets.
 * @param version read again whenever this changes (e.g. the asset's sensor count), so that a
 *   sensor just added can be chosen without a reload.
 * @returns the sensors, or undefined while they load.
 */
export function useVisibleSensors(version: unknown = 0): Sensor[] | undefined {
  const [sensors, setSensors] = useState<Sensor[]>();
  useEffect(() => {
    const abort = new AbortController();
    const { signal } = abort;
    Promise.all([
      request(`${API}/sensors`, { answer: wire.sensorList, signal }),
      request(`${API}/assets/public`, { answer: wire.assetList, signal }).then((assets) =>
        Promise.all(assets.map((a) => request(`${API}/sensors`, { answer: wire.sensorList, query: { asset_id: a.id }, signal }))),
      ),
    ]).then(
      ([own, pub]) => setSensors([...own, ...pub.flat()]),
      () => !signal.aborted && setSensors([]),
    );
    return () => abort.abort();
  }, [version]);
  return sensors;
}
