import { API } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';

type SensorNow = (typeof cockpit.siteNow)['_output']['sensors'][number];

/**
 * The sign trap in words: a power sensor that was below zero (consumption positive) at every
 * interval of yesterday, which a load never is, with how the sensor signs what it stores.
 * @returns the text, or undefined when the sensor does not look like that.
 */
export function negativeAllDayText(s: Pick<SensorNow, 'negative_all_day' | 'sign'>, zone: string): string | undefined {
  const n = s.negative_all_day;
  if (!n) return undefined;
  return (
    `Negative all day: all ${n.values} values of ${n.day} (${zone}) are below zero read consumption positive ` +
    `(the sensor stores ${s.sign}). A load never produces all day: check the sensor's sign.`
  );
}

/** On a sensor's page: the warning above, read from its site's health (`GET /assets/<id>/now`). */
export function NegativeAllDay({ sensor }: { sensor: Sensor }) {
  const now = useApi(`${API}/assets/${sensor.generic_asset_id}/now`, undefined, cockpit.siteNow);
  const mine = now.data?.sensors.find((s) => s.id === sensor.id);
  const text = mine && negativeAllDayText(mine, sensor.timezone);
  return text ? (
    <p role="alert" className="card sign-warning">
      {text}
    </p>
  ) : null;
}
