import type { ReactNode } from 'react';
import type { Sensor } from '../api/types.ts';

/** A fieldset of checkboxes, one per sensor, for choosing several of an asset's sensors. */
export function SensorChecklist({
  legend,
  sensors,
  chosen,
  onChange,
  errors,
  className,
}: {
  legend: string;
  sensors: Sensor[];
  chosen: number[];
  onChange: (ids: number[]) => void;
  errors?: string[];
  className?: string;
}): ReactNode {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {errors && <small className="field-error">{errors.join(' ')}</small>}
      {sensors.map((s) => (
        <label key={s.id} className="checkbox">
          <input
            type="checkbox"
            checked={chosen.includes(s.id)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, s.id] : chosen.filter((id) => id !== s.id))}
          />{' '}
          {s.name}
        </label>
      ))}
    </fieldset>
  );
}
