import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { API, request } from '../../api/client.ts';
import * as wire from '../../api/contracts.ts';
import type { Automation, Sensor } from '../../api/types.ts';
import { useApi } from '../../hooks/useApi.ts';
import { useSubmit, type Submit } from '../../hooks/useSubmit.ts';
import { formatTime } from '../../lib/time.ts';
import { DataTable } from '../DataTable.tsx';
import { Field } from '../Field.tsx';
import { Checklist } from '../Checklist.tsx';
import { FoldedForm, SubmitBar } from '../Form.tsx';
import { ErrorNotice, Loading } from '../Status.tsx';
import { IdSelect } from '../IdSelect.tsx';

const emptyForm = { name: '', cron: '*/15 * * * *', horizon: 'P1D', schedule: '', forecasts: [] as number[] };

/** The asset's automations (forecast, then schedule, on a cron) with their last and next run; members add, pause and delete them. */
export function AutomationsPanel({
  assetId,
  sensors,
  zone,
  canEdit,
}: {
  assetId: number;
  sensors: Sensor[];
  zone: string;
  canEdit: boolean;
}) {
  const list = useApi(`${API}/assets/${assetId}/automations`, undefined, wire.automationList);
  // One submit state for the table's buttons and the form: a refused pause shows under the form too.
  const submitting = useSubmit();
  const act = async (action: () => Promise<unknown>) => {
    const done = await submitting.run(action);
    if (done) list.reload();
    return done;
  };
  const name = (id: number | null) => sensors.find((s) => s.id === id)?.name ?? (id === null ? '' : `sensor ${id}`);
  const toggle = (a: Automation) => act(() => request(`${API}/automations/${a.id}`, { method: 'PATCH', json: { enabled: !a.enabled } }));
  const remove = (a: Automation) => act(() => request(`${API}/automations/${a.id}`, { method: 'DELETE' }));

  if (list.error) return <ErrorNotice error={list.error} />;
  if (!list.data) return <Loading what="Loading automations" />;
  return (
    <>
      <DataTable
        label="Automations"
        columns={['Automation', 'When', 'Forecasts', 'Schedules', `Last run (${zone})`, `Next run (${zone})`, canEdit && 'Actions']}
        rows={list.data}
        empty="No automations: schedules are made only when someone asks."
        row={(a) => (
          <tr key={a.id}>
            <th scope="row">{a.name}</th>
            <td>
              <code>{a.cron}</code> <span className="muted">({a.timezone})</span>
            </td>
            <td>{a.forecast_sensor_ids.map(name).join(', ')}</td>
            <td>{a.schedule_sensor_id === null ? '' : `${name(a.schedule_sensor_id)}, ${a.horizon} ahead`}</td>
            <td>{a.last_job_id ? <Link to={`/jobs/${a.last_job_id}`}>{formatTime(a.last_run, zone)}</Link> : 'not yet'}</td>
            <td>{a.enabled ? formatTime(a.next_run, zone) : 'paused'}</td>
            {canEdit && (
              <td>
                <div className="actions">
                  <button type="button" disabled={submitting.busy} onClick={() => void toggle(a)}>
                    {a.enabled ? 'Pause' : 'Resume'}
                  </button>
                  <button type="button" className="danger" disabled={submitting.busy} onClick={() => void remove(a)}>
                    Delete
                  </button>
                </div>
              </td>
            )}
          </tr>
        )}
      />
      {canEdit && <NewAutomation assetId={assetId} sensors={sensors} submitting={submitting} act={act} />}
    </>
  );
}

/** The form for a new automation; `act` sends it and reads the list again. */
function NewAutomation({
  assetId,
  sensors,
  submitting,
  act,
}: {
  assetId: number;
  sensors: Sensor[];
  submitting: Submit;
  act: (action: () => Promise<unknown>) => Promise<boolean>;
}) {
  const [form, setForm] = useState(emptyForm);
  const { fields } = submitting;

  async function add(e: FormEvent) {
    e.preventDefault();
    const json = {
      name: form.name,
      cron: form.cron,
      horizon: form.horizon,
      forecast_sensor_ids: form.forecasts,
      schedule_sensor_id: form.schedule ? Number(form.schedule) : null,
    };
    if (await act(() => request(`${API}/assets/${assetId}/automations`, { method: 'POST', json, answer: wire.automation })))
      setForm(emptyForm);
  }

  return (
    <FoldedForm summary="Add an automation" label="New automation" onSubmit={add}>
      <Field label="Name" errors={fields.name}>
        <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      </Field>
      <Field label="When (cron)" errors={fields.cron} hint={`Five fields, in the site's time zone; */15 * * * * is every quarter hour.`}>
        <input required value={form.cron} onChange={(e) => setForm({ ...form, cron: e.target.value })} />
      </Field>
      <Field label="Horizon" errors={fields.horizon} hint="How far ahead each run forecasts and schedules (ISO 8601).">
        <input required value={form.horizon} onChange={(e) => setForm({ ...form, horizon: e.target.value })} />
      </Field>
      <Field label="Schedule" errors={fields.schedule_sensor_id} hint="With the asset's stored flex-model and flex-context.">
        <IdSelect value={form.schedule} onChange={(e) => setForm({ ...form, schedule: e.target.value })} items={sensors} none="(nothing)" />
      </Field>
      <Checklist
        legend="Forecast first"
        items={sensors}
        chosen={form.forecasts}
        onChange={(forecasts) => setForm({ ...form, forecasts })}
        errors={fields.forecast_sensor_ids}
      />
      <SubmitBar submitting={submitting} busyLabel="Adding…">
        Add automation
      </SubmitBar>
    </FoldedForm>
  );
}
