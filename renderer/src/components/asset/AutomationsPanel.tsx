import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { API, request } from '../../api/client.ts';
import * as wire from '../../api/contracts.ts';
import type { Automation, Sensor } from '../../api/types.ts';
import { useApi } from '../../hooks/useApi.ts';
import { useSubmit, type Submit } from '../../hooks/useSubmit.ts';
import { cronOf, describeCron, repeatLabels, type RunTimes, type Repeat } from '../../lib/cronPicker.ts';
import { formatTime } from '../../lib/time.ts';
import { DataTable } from '../DataTable.tsx';
import { Field } from '../Field.tsx';
import { Checklist } from '../Checklist.tsx';
import { FoldedForm, SubmitBar } from '../Form.tsx';
import { ErrorNotice, Loading } from '../Status.tsx';
import { IdSelect } from '../IdSelect.tsx';

const emptyForm = {
  name: '',
  when: { repeat: 'daily', time: '06:00', minute: '0', cron: '*/15 * * * *' } as RunTimes,
  horizon: 'P1D',
  schedule: '',
  forecasts: [] as number[],
};

type Outcome = NonNullable<Automation['last_outcome']>;

/** Each outcome in words, with its badge's tone (a word and a sign, not colour alone). */
const outcomes: Record<Outcome['status'], { label: string; tone: string }> = {
  queued: { label: 'Queued', tone: 'queued' },
  running: { label: 'Running', tone: 'started' },
  success: { label: '✓ Success', tone: 'finished' },
  warnings: { label: '⚠ With warnings', tone: 'warned' },
  failed: { label: '✖ Failed', tone: 'failed' },
};

/** How the last run went, when (in the site's zone), and a link to the job to look at. */
function LastRun({ a, zone }: { a: Automation; zone: string }) {
  const o = a.last_outcome;
  if (!o) return <>{a.last_run ? formatTime(a.last_run, zone) : 'not yet'}</>;
  const shown = outcomes[o.status];
  return (
    <>
      <Link to={`/jobs/${o.job_id}`} className="job-link">
        <span className={`badge ${shown.tone}`} title={o.message ?? undefined}>
          {shown.label}
        </span>
      </Link>{' '}
      {formatTime(o.finished_at ?? a.last_run, zone)}
    </>
  );
}

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
  // Sensors as the API names them for people (their device first: several devices each have a "power").
  const name = (a: Automation, id: number) => a.sensor_names[String(id)] ?? sensors.find((s) => s.id === id)?.name ?? `sensor ${id}`;
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
              {describeCron(a.cron) ?? <code>{a.cron}</code>} <span className="muted">({a.timezone})</span>
            </td>
            <td>{a.forecast_sensor_ids.map((id) => name(a, id)).join(', ')}</td>
            <td>{a.schedule_sensor_id === null ? '' : `${name(a, a.schedule_sensor_id)}, ${a.horizon} ahead`}</td>
            <td>
              <LastRun a={a} zone={zone} />
            </td>
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
      cron: cronOf(form.when),
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
      <SchedulePicker when={form.when} onChange={(when) => setForm({ ...form, when })} errors={fields.cron} />
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

/** When an automation runs: daily, hourly or on weekdays at a time, or a cron expression; it shows the cron it writes. */
function SchedulePicker({ when, onChange, errors }: { when: RunTimes; onChange: (when: RunTimes) => void; errors?: string[] }) {
  const cron = cronOf(when);
  return (
    <fieldset className="schedule-picker">
      <legend>When</legend>
      <Field label="Repeat">
        <select value={when.repeat} onChange={(e) => onChange({ ...when, repeat: e.target.value as Repeat })}>
          {(Object.keys(repeatLabels) as Repeat[]).map((r) => (
            <option key={r} value={r}>
              {repeatLabels[r]}
            </option>
          ))}
        </select>
      </Field>
      {(when.repeat === 'daily' || when.repeat === 'weekdays') && (
        <Field label="Time" hint="In the site's time zone." errors={errors}>
          <input type="time" required value={when.time} onChange={(e) => onChange({ ...when, time: e.target.value })} />
        </Field>
      )}
      {when.repeat === 'hourly' && (
        <Field label="Minute" hint="Minutes past each hour, 0–59." errors={errors}>
          <input
            type="number"
            min={0}
            max={59}
            required
            value={when.minute}
            onChange={(e) => onChange({ ...when, minute: e.target.value })}
          />
        </Field>
      )}
      {when.repeat === 'cron' && (
        <Field label="Cron expression" errors={errors} hint="Five fields, in the site's time zone; */15 * * * * is every quarter hour.">
          <input required value={when.cron} onChange={(e) => onChange({ ...when, cron: e.target.value })} />
        </Field>
      )}
      {when.repeat !== 'cron' && (
        <p className="muted" aria-label="Cron written">
          Stored as cron <code>{cron}</code>
        </p>
      )}
    </fieldset>
  );
}
