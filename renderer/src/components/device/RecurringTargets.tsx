import { useState, type FormEvent } from 'react';
import { recurringSocTargetList } from '../../../../server/src/contracts/devices.ts';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useApi } from '../../hooks/useApi.ts';
import { describeDays, type TargetRow } from '../../lib/deviceSetup.ts';
import { Empty, ErrorNotice, Loading } from '../Status.tsx';
import { TargetFields } from './TargetFields.tsx';

/**
 * An EV's recurring charging targets on its asset page: listed, and edited as a whole list
 * (percentages of the car's capacity), which the next automation runs plan for.
 */
export function RecurringTargets({ assetId, canEdit }: { assetId: number; canEdit: boolean }) {
  const stored = useApi(`${API}/assets/${assetId}/recurring-soc-targets`, undefined, recurringSocTargetList);
  const [editing, setEditing] = useState<TargetRow[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const fields = error instanceof ApiError ? error.fields : {};

  if (stored.error) return <ErrorNotice error={stored.error} />;
  if (!stored.data) return <Loading what="Loading the charging targets" />;
  const list = stored.data.targets;

  async function save(e: FormEvent) {
    e.preventDefault();
    try {
      await request(`${API}/assets/${assetId}/recurring-soc-targets`, {
        method: 'PUT',
        json: { targets: editing!.map((t) => ({ days: t.days, time: t.time, value: `${t.percent.trim()}%`, timezone: t.timezone })) },
        answer: recurringSocTargetList,
      });
      setError(null);
      setEditing(null);
      stored.reload();
    } catch (err) {
      setError(err);
    }
  }

  if (editing) {
    return (
      <form onSubmit={(e) => void save(e)} aria-label="Edit charging targets">
        <TargetFields targets={editing} onChange={setEditing} fields={fields} at="targets" />
        {Object.keys(fields).length === 0 && <ErrorNotice error={error} />}
        <div className="actions">
          <button type="submit" className="primary">
            Save targets
          </button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </div>
      </form>
    );
  }
  // Only percentages are edited here; an energy target set over the API is shown as it is.
  const editable = list.every((t) => t.value.trim().endsWith('%'));
  return (
    <>
      {list.length ? (
        <ul aria-label="Charging targets">
          {list.map((t) => (
            <li key={t.id}>
              {t.value} by {t.time} on {describeDays(t.days)} ({t.timezone})
            </li>
          ))}
        </ul>
      ) : (
        <Empty>No recurring targets: automations plan without one.</Empty>
      )}
      {canEdit && editable && (
        <button
          type="button"
          onClick={() =>
            setEditing(list.map((t) => ({ percent: t.value.replace('%', '').trim(), time: t.time, days: t.days, timezone: t.timezone })))
          }
        >
          Edit targets
        </button>
      )}
    </>
  );
}
