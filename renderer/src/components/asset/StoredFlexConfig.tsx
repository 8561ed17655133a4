import { useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import type { Asset } from '../../api/types.ts';
import { storedFlex } from '../../lib/attributes.ts';
import { ErrorNotice, Empty } from '../Status.tsx';

interface Props {
  asset: Asset;
  /** Whether the user may store the asset's flex-model and flex-context. */
  canEdit: boolean;
  onStored: () => void;
}

/** @returns the object a JSON text holds, or the message why it is not one. */
function parseObject(text: string): { value: Record<string, unknown> } | { error: string } {
  if (!text.trim()) return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'Must be a JSON object, e.g. {"soc-max": 40}.' };
    return { value: value as Record<string, unknown> };
  } catch (err) {
    return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * The flex-model and flex-context stored on the asset, which every trigger starts from: as a
 * key list, and as raw JSON to edit whole (checked here for JSON, by the server for its fields).
 */
export function StoredFlexConfig({ asset, canEdit, onStored }: Props) {
  const { model, context } = storedFlex(asset);
  const parts = [
    ['flex-model', model],
    ['flex-context', context],
  ] as const;
  return (
    <>
      <div className="two-columns">
        {parts.map(([key, value]) => (
          <section key={key} aria-label={`Stored ${key}`}>
            <h3>{key}</h3>
            {Object.keys(value).length ? (
              <dl className="kv">
                {Object.entries(value).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>
                  </div>
                ))}
              </dl>
            ) : (
              <Empty>None stored; schedules use the sensor and asset attributes.</Empty>
            )}
          </section>
        ))}
      </div>
      {canEdit && <RawJsonEditor asset={asset} model={model} context={context} onStored={onStored} />}
    </>
  );
}

function RawJsonEditor({
  asset,
  model,
  context,
  onStored,
}: {
  asset: Asset;
  model: Record<string, unknown>;
  context: Record<string, unknown>;
  onStored: () => void;
}) {
  const [texts, setTexts] = useState(() => ({
    'flex-model': JSON.stringify(model, null, 2),
    'flex-context': JSON.stringify(context, null, 2),
  }));
  const [failure, setFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const parsed = { 'flex-model': parseObject(texts['flex-model']), 'flex-context': parseObject(texts['flex-context']) };
  const valid = 'value' in parsed['flex-model'] && 'value' in parsed['flex-context'];

  async function save(e: FormEvent) {
    e.preventDefault();
    setFailure(null);
    setSaved(false);
    const m = parsed['flex-model'];
    const c = parsed['flex-context'];
    if (!('value' in m) || !('value' in c)) return;
    try {
      await request(`${API}/assets/${asset.id}`, {
        method: 'PATCH',
        json: { flex_model: JSON.stringify(m.value), flex_context: JSON.stringify(c.value) },
      });
      setSaved(true);
      onStored();
    } catch (err) {
      setFailure(err instanceof ApiError ? err : new ApiError(0, { message: String(err) }));
    }
  }

  return (
    <details className="raw-json">
      <summary>Edit as JSON</summary>
      <form onSubmit={save} aria-label="Stored flex settings as JSON" noValidate>
        <div className="two-columns">
          {(['flex-model', 'flex-context'] as const).map((key) => {
            const p = parsed[key];
            const id = `raw-${key}`;
            return (
              <div key={key} className={'error' in p ? 'field invalid' : 'field'}>
                <label htmlFor={id}>{key} (JSON)</label>
                <textarea
                  id={id}
                  rows={10}
                  spellCheck={false}
                  value={texts[key]}
                  aria-invalid={'error' in p || undefined}
                  onChange={(e) => setTexts((t) => ({ ...t, [key]: e.target.value }))}
                />
                {'error' in p && <small className="field-error">{p.error}</small>}
              </div>
            );
          })}
        </div>
        <div className="actions">
          <button type="submit" disabled={!valid}>
            Save JSON
          </button>
          {saved && (
            <span role="status" className="ok">
              Saved.
            </span>
          )}
        </div>
      </form>
      <ErrorNotice error={failure} />
    </details>
  );
}
