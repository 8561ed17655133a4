import { weekdays } from '../../../../server/src/contracts/devices.ts';
import type { FieldMessages } from '../../api/errors.ts';
import { dayNames, workingDays, type TargetRow } from '../../lib/deviceSetup.ts';
import { Field } from '../Field.tsx';

/** An EV's recurring charging targets ("80 % by 07:00 on weekdays"), one group per target. */
export function TargetFields({
  targets,
  onChange,
  fields,
  at,
}: {
  targets: TargetRow[];
  onChange: (targets: TargetRow[]) => void;
  fields: FieldMessages;
  /** Where the request body holds the list, for the field messages of a 422. */
  at: 'soc_targets' | 'targets';
}) {
  const change = (i: number, patch: Partial<TargetRow>) => onChange(targets.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  return (
    <fieldset className="wide">
      <legend>Charging targets</legend>
      <p className="hint">Each automation run plans to reach these; a percentage is of the car’s capacity.</p>
      {targets.map((t, i) => (
        <fieldset key={i} aria-label={`Target ${i + 1}`}>
          <legend>Target {i + 1}</legend>
          <div className="target-row">
            <Field label="Charge to (%)" errors={fields[`${at}.${i}.value`]}>
              <input
                type="number"
                min="1"
                max="100"
                step="any"
                value={t.percent}
                onChange={(e) => change(i, { percent: e.target.value })}
                required
              />
            </Field>
            <Field
              label="By"
              errors={fields[`${at}.${i}.time`]}
              hint="On the day clocks go forward, a time that does not exist (02:30) moves an hour later; on the day they go back, a time that occurs twice counts the first time."
            >
              <input type="time" value={t.time} onChange={(e) => change(i, { time: e.target.value })} required />
            </Field>
            <button type="button" onClick={() => onChange(targets.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
          <fieldset aria-label="On days" className="day-choice">
            <legend>On</legend>
            {weekdays.map((d) => (
              <label key={d} className="checkbox">
                <input
                  type="checkbox"
                  checked={t.days.includes(d)}
                  onChange={(e) => change(i, { days: e.target.checked ? [...t.days, d] : t.days.filter((x) => x !== d) })}
                />
                {dayNames[d]}
              </label>
            ))}
            {fields[`${at}.${i}.days`] && <small className="field-error">{fields[`${at}.${i}.days`].join(' ')}</small>}
          </fieldset>
        </fieldset>
      ))}
      <button type="button" onClick={() => onChange([...targets, { percent: '80', time: '07:00', days: workingDays }])}>
        Add a target
      </button>
    </fieldset>
  );
}
