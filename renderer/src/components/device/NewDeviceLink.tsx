import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { mqttLink, type assetMqttLinks, type MqttLinkWire } from '../../../../server/src/contracts/mqttLinkAnswers.ts';
import { API, request } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import { useForm } from '../../hooks/useForm.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { deviceTopic } from '../../lib/deviceLinks.ts';
import { Field } from '../Field.tsx';
import { FoldedForm, SubmitBar } from '../Form.tsx';

type Broker = z.infer<typeof assetMqttLinks>['broker'];

const initial = (sensor: Sensor | undefined) => ({
  direction: 'in' as 'in' | 'out',
  name: '',
  sensor: String(sensor?.id ?? ''),
  topic: '',
  payload: 'number' as 'number' | 'json',
  value_path: '',
  unit: sensor?.unit ?? 'kW',
  scale: '1',
  inverted: 'no',
  safe_setpoint: '0',
  stale_after: 'PT1H',
});

type LinkForm = ReturnType<typeof initial>;

/** The request body of the form: an in-link's topic and payload, or an out-link's safe setpoint. */
function linkBody(form: LinkForm) {
  const common = {
    direction: form.direction,
    name: form.name,
    unit: form.unit,
    scale: Number(form.scale),
    inverted: form.inverted === 'yes',
  };
  if (form.direction === 'out') return { ...common, safe_setpoint: Number(form.safe_setpoint), stale_after: form.stale_after };
  return { ...common, topic: form.topic, value_path: form.payload === 'json' ? form.value_path : null };
}

/** The new link, with the password its device signs in with: the only time it is shown. */
function LinkMade({ link, broker }: { link: MqttLinkWire; broker: Broker }) {
  const where =
    link.direction === 'in' ? `publishes on ${link.topic}` : `reads its setpoint on ${deviceTopic(link)} (plan and status beside it)`;
  return (
    <div className="notice ok" role="status" aria-label="Link made">
      <p>
        Link “{link.name}” made: the device {where}.
      </p>
      {broker.mode === 'embedded' && (
        <p>
          It signs in as <code>{link.username}</code> with password <code className="secret">{link.password}</code>. The password is shown
          only now: put it in the device’s settings.
        </p>
      )}
    </div>
  );
}

/** The form for a new link of one of the device's sensors; `onMade` reads the list again. */
export function NewDeviceLink({ sensors, broker, onMade }: { sensors: Sensor[]; broker: Broker; onMade: () => void }) {
  const { form, setForm, set } = useForm(() => initial(sensors[0]));
  const [made, setMade] = useState<MqttLinkWire | null>(null);
  const submitting = useSubmit();
  const { fields } = submitting;
  const out = form.direction === 'out';
  // A new sensor brings its unit: the device's unit is most often the sensor's.
  const pickSensor = (e: { target: { value: string } }) =>
    setForm({ ...form, sensor: e.target.value, unit: sensors.find((s) => String(s.id) === e.target.value)?.unit ?? form.unit });

  function add(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      setMade(null);
      const link = await request(`${API}/sensors/${form.sensor}/mqtt-links`, { method: 'POST', json: linkBody(form), answer: mqttLink });
      setMade(link);
      setForm(initial(sensors.find((s) => String(s.id) === form.sensor)));
      onMade();
    });
  }

  return (
    <>
      {made && <LinkMade link={made} broker={broker} />}
      <FoldedForm summary="Link a device" label="New device link" onSubmit={add}>
        <Field label="Direction" errors={fields.direction}>
          <select value={form.direction} onChange={set('direction')}>
            <option value="in">Measurements in (device → sensor)</option>
            <option value="out">Setpoints out (plan → device)</option>
          </select>
        </Field>
        <Field label="Link name" errors={fields.name}>
          <input required value={form.name} onChange={set('name')} />
        </Field>
        <Field label="Sensor">
          <select value={form.sensor} onChange={pickSensor}>
            {sensors.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.unit})
              </option>
            ))}
          </select>
        </Field>
        {out ? <OutFields form={form} set={set} fields={fields} /> : <InFields form={form} set={set} fields={fields} />}
        <Field label="Unit" errors={fields.unit} hint={out ? 'The unit the device expects.' : 'The unit the device sends, e.g. W or kW.'}>
          <input required value={form.unit} onChange={set('unit')} />
        </Field>
        <Field label="Scale" errors={fields.scale} hint="Multiplies first, e.g. 0.001 for a meter counting mW.">
          <input required type="number" step="any" value={form.scale} onChange={set('scale')} />
        </Field>
        <Field label="Sign" errors={fields.inverted}>
          <select value={form.inverted} onChange={set('inverted')}>
            <option value="no">{out ? 'Consumption positive' : 'As the device sends it'}</option>
            <option value="yes">{out ? 'Production positive' : 'Flipped (the device counts export or production as positive)'}</option>
          </select>
        </Field>
        <SubmitBar submitting={submitting} busyLabel="Linking…">
          Link device
        </SubmitBar>
      </FoldedForm>
    </>
  );
}

interface PartProps {
  form: LinkForm;
  set: (key: keyof LinkForm) => (e: { target: { value: string } }) => void;
  fields: Record<string, string[]>;
}

/** An in-link's topic and where the value is in its payload. */
function InFields({ form, set, fields }: PartProps) {
  return (
    <>
      <Field
        label="Topic"
        errors={fields.topic}
        hint="Where the device publishes; + and # match any level, e.g. shellies/+/emeter/0/power."
      >
        <input required value={form.topic} onChange={set('topic')} />
      </Field>
      <Field label="Payload" errors={form.payload === 'json' ? undefined : fields.value_path}>
        <select value={form.payload} onChange={set('payload')}>
          <option value="number">A plain number</option>
          <option value="json">JSON</option>
        </select>
      </Field>
      {form.payload === 'json' && (
        <Field label="Value path" errors={fields.value_path} hint="Where the number is, dotted, e.g. apower or emeter.0.power.">
          <input required value={form.value_path} onChange={set('value_path')} />
        </Field>
      )}
    </>
  );
}

/** An out-link's safe setpoint and how old a plan may get before it is sent instead. */
function OutFields({ form, set, fields }: PartProps) {
  return (
    <>
      <Field label="Safe setpoint" errors={fields.safe_setpoint} hint="Sent when the plan ends or is too old, in the unit below.">
        <input required type="number" step="any" value={form.safe_setpoint} onChange={set('safe_setpoint')} />
      </Field>
      <Field label="Plan too old after" errors={fields.stale_after} hint="ISO 8601, e.g. PT1H or PT6H.">
        <input required value={form.stale_after} onChange={set('stale_after')} />
      </Field>
    </>
  );
}
