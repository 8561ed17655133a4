import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { deviceSetupAnswer, type DeviceSetupAnswer } from '../../../server/src/contracts/devices.ts';
import { API, request } from '../api/client.ts';
import * as wire from '../api/contracts.ts';
import { useSession } from '../app/session.tsx';
import { DeviceMade } from '../components/device/DeviceMade.tsx';
import { CommonDeviceFields, ProcessDeviceFields, PvDeviceFields, StorageDeviceFields } from '../components/device/DeviceFields.tsx';
import { TargetFields } from '../components/device/TargetFields.tsx';
import { Field } from '../components/Field.tsx';
import { SubmitBar } from '../components/Form.tsx';
import { ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useForm } from '../hooks/useForm.ts';
import { useSubmit } from '../hooks/useSubmit.ts';
import { deviceSetupBody, storesEnergy, type DeviceForm, type DeviceKind, type TargetRow } from '../lib/deviceSetup.ts';

const kinds: Record<DeviceKind, string> = {
  battery: 'Battery',
  'ev-charger': 'EV charger',
  pv: 'Solar panels',
  process: 'Heat pump or process',
  'house-load': 'House load',
  'grid-meter': 'Grid meter',
};

/**
 * Plain device set-up under a site: a battery, an EV charger, solar panels or a heat pump/process
 * in kW, kWh and %, from which the server makes the asset, its sensors and its flex-model.
 */
export function AddDevicePage() {
  const { id } = useParams();
  const site = useApi(`${API}/assets/${id}`, undefined, wire.assetAnswer);
  const [made, setMade] = useState<DeviceSetupAnswer | null>(null);

  if (site.error) return <ErrorNotice error={site.error} />;
  if (!site.data) return <Loading what="Loading the site" />;
  return (
    <article className="page" aria-labelledby="device-title">
      <div className="page-head">
        <h1 id="device-title">Add a device</h1>
        <span className="muted">
          to <Link to={`/assets/${site.data.id}`}>{site.data.name}</Link>
        </span>
      </div>
      <NewDevice siteId={site.data.id} onMade={setMade} />
      {made && <DeviceMade made={made} />}
    </article>
  );
}

/** The device form; `onMade` gets what the server made, or null while a new attempt runs. */
function NewDevice({ siteId, onMade }: { siteId: number; onMade: (made: DeviceSetupAnswer | null) => void }) {
  const session = useSession();
  const { form, setForm, set } = useForm<DeviceForm>({
    kind: 'battery',
    name: '',
    timezone: session.user.timezone,
    resolution: '15',
    power: '',
    capacity: '',
    reserve: '',
    charging: '',
    discharging: '',
    arrival: '',
    bidirectional: false,
    hours: '',
    tilt: '',
    azimuth: '',
    processType: 'SHIFTABLE',
  });
  const [targets, setTargets] = useState<TargetRow[]>([]);
  const submitting = useSubmit();
  const { fields } = submitting;
  const parts = { form, set, fields };

  function submit(e: FormEvent) {
    e.preventDefault();
    onMade(null);
    void submitting.run(async () =>
      onMade(
        await request(`${API}/assets/${siteId}/devices`, {
          method: 'POST',
          json: deviceSetupBody(form, targets),
          answer: deviceSetupAnswer,
        }),
      ),
    );
  }

  return (
    <form className="card grid-form" onSubmit={submit} aria-label="Add a device">
      <Field label="Kind of device" errors={fields.kind}>
        <select value={form.kind} onChange={set('kind')}>
          {Object.entries(kinds).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <CommonDeviceFields {...parts} />
      {storesEnergy(form.kind) && <StorageDeviceFields {...parts} />}
      {form.kind === 'ev-charger' && (
        <>
          <label className="checkbox">
            <input type="checkbox" checked={form.bidirectional} onChange={(e) => setForm({ ...form, bidirectional: e.target.checked })} />
            Two-way charger (the car can feed the site)
          </label>
          <TargetFields targets={targets} onChange={setTargets} fields={fields} at="soc_targets" />
        </>
      )}
      {form.kind === 'process' && <ProcessDeviceFields {...parts} />}
      {form.kind === 'pv' && (
        <>
          <PvDeviceFields {...parts} />
          <p className="hint wide">
            The site’s schedules will count the panels’ power as an inflexible device. With tilt and azimuth, it is forecast from the site’s
            clear sky from the first day, until its own history takes over.
          </p>
        </>
      )}
      {form.kind === 'house-load' && (
        <p className="hint wide">
          What the house uses besides the devices, consumption positive: the site’s schedules plan the battery against it.
        </p>
      )}
      {form.kind === 'grid-meter' && (
        <p className="hint wide">
          The site’s power at the grid connection, import positive: the site’s schedules write their plan for it beside what it measures.
        </p>
      )}
      <SubmitBar submitting={submitting} busyLabel="Adding…">
        Add device
      </SubmitBar>
    </form>
  );
}
