import { useEffect, useMemo, useRef, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import type { Asset, Job, Sensor } from '../../api/types.ts';
import { useFollowedJob } from '../../hooks/useFollowedJob.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { formatElapsed } from '../../lib/time.ts';
import { Field } from '../Field.tsx';
import { SaveBar } from '../Form.tsx';
import { JobStatus } from '../JobStatus.tsx';
import { ErrorNotice, Progress } from '../Status.tsx';
import { FlexContextFields, ProcessFields, StorageFields } from './FlexFields.tsx';
import { ScheduleResult } from './ScheduleResult.tsx';
import { useScheduleForm, type ScheduleForm } from './useScheduleForm.ts';
import * as wire from '../../api/contracts.ts';
import { IdSelect, withUnit } from '../IdSelect.tsx';
import { recurringSocTargetList } from '../../../../server/src/contracts/devices.ts';
import { useApi } from '../../hooks/useApi.ts';
import { describeDays } from '../../lib/deviceSetup.ts';

interface Props {
  asset: Asset;
  assetType: string;
  sensors: Sensor[];
  zone: string;
  /** Whether the user may trigger schedules and store defaults on this asset. */
  canSchedule: boolean;
  onStored: () => void;
}

/** The Compute button's id, which the skip links go to. */
const COMPUTE_ID = 'compute-schedule';

/** Why a schedule shown is the fallback: the optimal one's failure. */
const fallbackNote = (failed: Job) => `The optimal schedule failed (${failed.error ?? 'no reason given'}); showing the fallback schedule.`;

/**
 * The Schedule panel: edit the flex-model and flex-context, trigger a job, watch it run and
 * inspect its result or the reason it failed.
 */
export function SchedulePanel({ asset, assetType, sensors, zone, canSchedule, onStored }: Props) {
  const schedule = useScheduleForm(asset, assetType, sensors, zone);
  // A failed schedule is followed to its fallback.
  const jobs = useFollowedJob({ fallbackNote });
  const saving = useSubmit();
  const names = useMemo(() => Object.fromEntries(sensors.map((s) => [s.id, s.name])), [sensors]);

  /**
   * Triggers the schedule of the form. The server answers an identical request on unchanged data
   * with its earlier job; `again` asks for a new one all the same (the operator knows something
   * the inputs do not show, or wants to see it computed).
   */
  async function trigger(e: FormEvent | null, again = false) {
    e?.preventDefault();
    jobs.setFailure(null);
    saving.reset();
    const json = schedule.triggerBody();
    if (!json) return;
    const refused = await jobs.follow(async () => {
      const answer = await request(`${API}/sensors/${schedule.sensorId}/schedules/trigger`, {
        answer: wire.triggerAnswer,
        method: 'POST',
        json: again ? { ...json, 'force-new-job-creation': true } : json,
      });
      return answer.schedule;
    });
    if (refused) schedule.setErrors(refused instanceof ApiError ? refused.fields : {});
  }

  function storeDefaults() {
    jobs.setFailure(null);
    saving.reset();
    const json = schedule.defaultsPatch();
    if (!json) return;
    void saving.run(async () => {
      await request(`${API}/assets/${asset.id}`, { method: 'PATCH', json });
      onStored();
    });
  }

  if (!canSchedule) return <p className="muted">Only members of this asset's account can compute schedules for it.</p>;
  if (!schedule.powerSensors.length)
    return <p className="empty">Add a power sensor (unit W, kW or MW) to this asset to compute schedules for it.</p>;

  const { running, job } = jobs;
  return (
    <div className="schedule-panel">
      <SkipToCompute />
      {schedule.usedAttributes.length > 0 && (
        <p className="muted" role="note" aria-label="Filled from attributes">
          Filled from this asset's FlexMeasures 0.18 attributes ({schedule.usedAttributes.join(', ')}), shown in the units beside each
          field; "Save as this asset's defaults" stores them as flex-model and flex-context keys.
        </p>
      )}
      <form onSubmit={(e) => void trigger(e)} noValidate aria-label="Schedule">
        <ScheduleWhen schedule={schedule} zone={zone} />
        {schedule.isEv && <CarTargets assetId={asset.id} />}
        <FlexFieldsets schedule={schedule} sensors={sensors} zone={zone} />
        <SaveBar saved={saving.saved}>
          <button type="submit" className="primary" disabled={running} id={COMPUTE_ID}>
            {running ? 'Scheduling…' : 'Compute schedule'}
          </button>
          {job && (
            <button
              type="button"
              disabled={running}
              onClick={() => void trigger(null, true)}
              title="A new job, even where the same request on unchanged data would get the last one back"
            >
              Compute again
            </button>
          )}
          <button type="button" onClick={storeDefaults}>
            Save as this asset's defaults
          </button>
        </SaveBar>
      </form>
      <ErrorNotice error={jobs.failure ?? saving.error} />
      {job && <ScheduleJob job={job} settled={jobs.settled} running={running} elapsed={jobs.elapsed} zone={zone} names={names} />}
      {!job && running && <Progress label="Sending the request" />}
    </div>
  );
}

/**
 * The form is long: Compute is one Tab and Enter away from the start of the panel, and from the
 * start of the asset's page (the page's own fields and lists come before the panel).
 */
export function SkipToCompute() {
  return (
    <a
      className="skip-link"
      href={`#${COMPUTE_ID}`}
      onClick={(e) => {
        e.preventDefault();
        document.getElementById(COMPUTE_ID)?.focus();
      }}
    >
      Skip to Compute
    </a>
  );
}

/** Which power sensor to schedule, from when and for how long. */
function ScheduleWhen({ schedule, zone }: { schedule: ScheduleForm; zone: string }) {
  const { errors } = schedule;
  return (
    <div className="grid-form">
      <Field label="Power sensor to schedule" errors={errors.sensor}>
        <IdSelect
          value={schedule.sensorId ?? ''}
          onChange={(e) => schedule.setSensorId(Number(e.target.value))}
          items={schedule.powerSensors}
          label={withUnit}
        />
      </Field>
      <Field label={`Start (${zone})`} errors={errors.start}>
        <input type="datetime-local" value={schedule.start} onChange={(e) => schedule.setStart(e.target.value)} />
      </Field>
      <Field label="Duration" errors={errors.duration} hint="ISO 8601, e.g. PT24H">
        <input value={schedule.duration} onChange={(e) => schedule.setDuration(e.target.value)} list="durations" />
      </Field>
      <datalist id="durations">
        <option value="PT6H" />
        <option value="PT12H" />
        <option value="PT24H" />
        <option value="PT48H" />
      </datalist>
    </div>
  );
}

/** The flex-model (of a process or of storage) and the flex-context. */
function FlexFieldsets({ schedule, sensors, zone }: { schedule: ScheduleForm; sensors: Sensor[]; zone: string }) {
  const { form, setForm, errors } = schedule;
  return (
    <>
      <fieldset>
        <legend>Flex-model</legend>
        {schedule.isProcess ? (
          <ProcessFields form={form} setForm={setForm} errors={errors} />
        ) : (
          <StorageFields
            form={form}
            setForm={setForm}
            errors={errors}
            zone={zone}
            socSensors={sensors.filter((s) => /^(k|M)?Wh$|^%$/.test(s.unit))}
            isEv={schedule.isEv}
          />
        )}
      </fieldset>
      <fieldset>
        <legend>Flex-context</legend>
        <FlexContextFields form={form} setForm={setForm} errors={errors} sensors={schedule.visible ?? []} currency={schedule.currency} />
      </fieldset>
    </>
  );
}

/** The job asked for: its state, how long it has been waited for, and its result once settled. */
function ScheduleJob({
  job,
  settled,
  running,
  elapsed,
  zone,
  names,
}: {
  job: Job;
  settled: boolean;
  running: boolean;
  elapsed: number;
  zone: string;
  names: Record<number, string>;
}) {
  // The result starts below the long form: once the job has settled, the focus moves to it (and
  // so brings it into view), where a keyboard or screen-reader user continues, not the page's top.
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    if (settled) section.current?.focus();
  }, [settled, job.id]);
  return (
    <section className="job-state" aria-live="polite" aria-label="Scheduling job" ref={section} tabIndex={-1}>
      <p>
        Job <code>{job.id}</code> <JobStatus job={job} />
      </p>
      {running && <Progress label={`${job.status === 'started' ? 'Computing' : 'Waiting for a worker'} · ${formatElapsed(elapsed)}`} />}
      <ScheduleResult job={job} zone={zone} names={names} />
    </section>
  );
}

/** A car's recurring charging targets, which Compute plans for as automations do. */
function CarTargets({ assetId }: { assetId: number }) {
  const { data } = useApi(`${API}/assets/${assetId}/recurring-soc-targets`, undefined, recurringSocTargetList);
  if (!data?.targets.length) return null;
  return (
    <p className="muted" role="note" aria-label="Charging targets planned for">
      Compute plans for the car’s charging targets in the schedule’s window:{' '}
      {data.targets.map((t) => `${t.value} by ${t.time} on ${describeDays(t.days)} (${t.timezone})`).join('; ')}.
    </p>
  );
}
