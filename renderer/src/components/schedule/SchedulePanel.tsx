import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError, type FieldMessages } from '../../api/errors.ts';
import { jobPath, readJob } from '../../api/jobs.ts';
import type { Asset, Job, Sensor } from '../../api/types.ts';
import { parseAttributes, storedFlex } from '../../lib/attributes.ts';
import { formatElapsed, isoToLocalInput, localInputToIso, nextHourMs } from '../../lib/time.ts';
import { Field } from '../Field.tsx';
import { JobStatus } from '../JobStatus.tsx';
import { ErrorNotice, Progress } from '../Status.tsx';
import { useVisibleSensors } from '../../hooks/useVisibleSensors.ts';
import { FlexContextFields, ProcessFields, StorageFields } from './FlexFields.tsx';
import {
  DEFAULT_CURRENCY,
  FORM_CONTEXT_KEYS,
  PROCESS_MODEL_KEYS,
  STORAGE_MODEL_KEYS,
  formFromStored,
  mergeStored,
  toFlexContext,
  toProcessFlexModel,
  toStorageFlexModel,
  type FlexForm,
} from './flexForm.ts';
import { ScheduleResult } from './ScheduleResult.tsx';
import { flexFromAttributes } from './legacyAttributes.ts';
import { currencyOf } from '../../lib/money.ts';
import * as wire from '../../api/contracts.ts';

interface Props {
  asset: Asset;
  assetType: string;
  sensors: Sensor[];
  zone: string;
  /** Whether the user may trigger schedules and store defaults on this asset. */
  canSchedule: boolean;
  onStored: () => void;
}

const isPower = (s: Sensor) => /^(k|M|G)?W$/.test(s.unit);
const POLL_MS = 500;

/**
 * The Schedule panel: edit the flex-model and flex-context, trigger a job, watch it run and
 * inspect its result or the reason it failed.
 */
export function SchedulePanel({ asset, assetType, sensors, zone, canSchedule, onStored }: Props) {
  const attributes = useMemo(() => parseAttributes(asset.attributes), [asset.attributes]);
  const powerSensors = sensors.filter(isPower);
  // Stored settings first; what FlexMeasures 0.18 kept as attributes fills the keys they leave out.
  const [fromAttributes] = useState(() => {
    const { model } = storedFlex(asset);
    const socUnit = typeof model['soc-unit'] === 'string' ? model['soc-unit'] : 'kWh';
    return flexFromAttributes(parseAttributes(powerSensors[0]?.attributes), attributes, socUnit);
  });
  const [form, setForm] = useState<FlexForm>(() => {
    const { model, context } = storedFlex(asset);
    return formFromStored({ ...fromAttributes.model, ...model }, { ...fromAttributes.context, ...context }, zone);
  });
  const [chosenSensorId, setSensorId] = useState<number | undefined>();
  // Until the user chooses, the first power sensor (also once sensors arrive after the first render).
  const sensorId = chosenSensorId ?? powerSensors[0]?.id;
  const [start, setStart] = useState(() => isoToLocalInput(nextHourMs(), zone));
  const [duration, setDuration] = useState('PT24H');
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [waitingSince, setWaitingSince] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [saved, setSaved] = useState(false);
  const visible = useVisibleSensors(sensors.map((s) => s.id).join(','));
  const isProcess = assetType === 'process' || assetType === 'load';

  // Follow the job until it finishes; a failed job with a fallback is followed to its fallback.
  const following = useRef<string | null>(null);
  const settled = job !== null && (job.status === 'finished' || (job.status === 'failed' && !job.fallback_job_id));
  useEffect(() => {
    if (!job || settled) return;
    const id = job.status === 'failed' ? job.fallback_job_id! : job.id;
    following.current = id;
    const timer = setTimeout(async () => {
      try {
        const next = await readJob(jobPath(id));
        if (following.current !== id) return;
        if (job.status === 'failed') {
          // Keep the original failure visible next to the fallback result.
          setFailure(
            new ApiError(0, { message: `The optimal schedule failed (${job.error ?? 'no reason given'}); showing the fallback schedule.` }),
          );
        }
        setJob(next);
        setNow(Date.now());
      } catch (err) {
        setFailure(err);
        setWaitingSince(null);
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [job, settled]);

  const names = useMemo(() => Object.fromEntries(sensors.map((s) => [s.id, s.name])), [sensors]);

  // The result starts below the long form: brought into view once the job has settled.
  const jobState = useRef<HTMLElement>(null);
  const compute = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (settled) jobState.current?.scrollIntoView({ block: 'start' });
  }, [settled, job?.id]);

  // Prices are in the chosen price sensor's currency; a bare breach price is taken in it.
  const chosenPrice = visible?.find((s) => String(s.id) === form.context['consumption-price-sensor']);
  const currency = currencyOf(chosenPrice?.unit) ?? DEFAULT_CURRENCY;

  function collect() {
    const model = isProcess ? toProcessFlexModel(form) : toStorageFlexModel(form, zone);
    const context = toFlexContext(form, currency);
    return { model: model.json, context: context.json, errors: { ...model.errors, ...context.errors } };
  }

  async function trigger(e: FormEvent) {
    e.preventDefault();
    setFailure(null);
    setSaved(false);
    const { model, context, errors: problems } = collect();
    const startIso = localInputToIso(start, zone);
    if (!startIso) problems.start = ['Missing data for required field.'];
    if (sensorId === undefined) problems.sensor = ['Choose the power sensor to schedule.'];
    setErrors(problems);
    if (Object.keys(problems).length) return;
    setJob(null);
    setWaitingSince(Date.now());
    try {
      const answer = await request(`${API}/sensors/${sensorId}/schedules/trigger`, {
        answer: wire.triggerAnswer,
        method: 'POST',
        json: { start: startIso, duration, 'flex-model': model, 'flex-context': context },
      });
      setJob(await readJob(jobPath(answer.schedule)));
    } catch (err) {
      setWaitingSince(null);
      setErrors(err instanceof ApiError ? err.fields : {});
      setFailure(err);
    }
  }

  async function storeDefaults() {
    setFailure(null);
    setSaved(false);
    const { model, context, errors: problems } = collect();
    setErrors(problems);
    if (Object.keys(problems).length) return;
    try {
      // Stored in the asset's own fields; what older versions kept in the attributes goes. Keys
      // the form does not show (relax flags, commitments, …) are kept as stored.
      const rest = Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'flex-model' && k !== 'flex-context'));
      const stored = storedFlex(asset);
      await request(`${API}/assets/${asset.id}`, {
        method: 'PATCH',
        json: {
          attributes: JSON.stringify(rest),
          flex_model: JSON.stringify(mergeStored(stored.model, model, isProcess ? PROCESS_MODEL_KEYS : STORAGE_MODEL_KEYS)),
          flex_context: JSON.stringify(mergeStored(stored.context, context, FORM_CONTEXT_KEYS)),
        },
      });
      setSaved(true);
      onStored();
    } catch (err) {
      setFailure(err);
    }
  }

  if (!canSchedule) return <p className="muted">Only members of this asset's account can compute schedules for it.</p>;
  if (!powerSensors.length)
    return <p className="empty">Add a power sensor (unit W, kW or MW) to this asset to compute schedules for it.</p>;

  const running = waitingSince !== null && !settled;
  return (
    <div className="schedule-panel">
      {/* The form is long: Compute is one Tab and Enter away from the start of the panel. */}
      <a
        className="skip-link"
        href="#compute-schedule"
        onClick={(e) => {
          e.preventDefault();
          compute.current?.focus();
        }}
      >
        Skip to Compute
      </a>
      {fromAttributes.used.length > 0 && (
        <p className="muted" role="note" aria-label="Filled from attributes">
          Filled from this asset's FlexMeasures 0.18 attributes ({fromAttributes.used.join(', ')}), shown in the units beside each field;
          "Save as this asset's defaults" stores them as flex-model and flex-context keys.
        </p>
      )}
      <form onSubmit={trigger} noValidate aria-label="Schedule">
        <div className="grid-form">
          <Field label="Power sensor to schedule" errors={errors.sensor}>
            <select value={sensorId ?? ''} onChange={(e) => setSensorId(Number(e.target.value))}>
              {powerSensors.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.unit})
                </option>
              ))}
            </select>
          </Field>
          <Field label={`Start (${zone})`} errors={errors.start}>
            <input type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} />
          </Field>
          <Field label="Duration" errors={errors.duration} hint="ISO 8601, e.g. PT24H">
            <input value={duration} onChange={(e) => setDuration(e.target.value)} list="durations" />
          </Field>
          <datalist id="durations">
            <option value="PT6H" />
            <option value="PT12H" />
            <option value="PT24H" />
            <option value="PT48H" />
          </datalist>
        </div>
        <fieldset>
          <legend>Flex-model</legend>
          {isProcess ? (
            <ProcessFields form={form} setForm={setForm} errors={errors} />
          ) : (
            <StorageFields
              form={form}
              setForm={setForm}
              errors={errors}
              zone={zone}
              socSensors={sensors.filter((s) => /^(k|M)?Wh$|^%$/.test(s.unit))}
            />
          )}
        </fieldset>
        <fieldset>
          <legend>Flex-context</legend>
          <FlexContextFields form={form} setForm={setForm} errors={errors} sensors={visible ?? []} currency={currency} />
        </fieldset>
        <div className="actions">
          <button type="submit" className="primary" disabled={running} id="compute-schedule" ref={compute}>
            {running ? 'Scheduling…' : 'Compute schedule'}
          </button>
          <button type="button" onClick={storeDefaults}>
            Save as this asset's defaults
          </button>
          {saved && (
            <span role="status" className="ok">
              Saved.
            </span>
          )}
        </div>
      </form>
      <ErrorNotice error={failure} />
      {job && (
        <section className="job-state" aria-live="polite" aria-label="Scheduling job" ref={jobState}>
          <p>
            Job <code>{job.id}</code> <JobStatus job={job} />
          </p>
          {running && (
            <Progress label={`${job.status === 'started' ? 'Computing' : 'Waiting for a worker'} · ${formatElapsed(now - waitingSince)}`} />
          )}
          <ScheduleResult job={job} zone={zone} names={names} />
        </section>
      )}
      {!job && running && <Progress label="Sending the request" />}
    </div>
  );
}
