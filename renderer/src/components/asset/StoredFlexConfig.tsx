import { useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import type { Asset } from '../../api/types.ts';
import { storedFlex } from '../../lib/attributes.ts';
import { Field } from '../Field.tsx';
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

/** A stored value as its field shows it: text as written, anything else as JSON. */
const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A value as typed in a field: JSON where it reads as JSON (numbers, true, lists, objects), else
 * the text itself (`10 kW`), as the API reads quantities.
 */
function typed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

type Part = 'flex-model' | 'flex-context';

/**
 * The flex-model and flex-context stored on the asset, which every trigger starts from: every
 * stored key as an editable field (a value left unchanged is sent back exactly as stored), a key
 * to add, and raw JSON to edit whole (checked here for JSON, by the server for its fields).
 */
export function StoredFlexConfig({ asset, canEdit, onStored }: Props) {
  const { model, context } = storedFlex(asset);
  const stored: Record<Part, Record<string, unknown>> = { 'flex-model': model, 'flex-context': context };
  // Edited texts by part and key; a key not here is as stored.
  const [edits, setEdits] = useState<Record<Part, Record<string, string>>>({ 'flex-model': {}, 'flex-context': {} });
  const [removed, setRemoved] = useState<Record<Part, string[]>>({ 'flex-model': [], 'flex-context': [] });
  const [added, setAdded] = useState<Record<Part, { key: string; value: string }>>({
    'flex-model': { key: '', value: '' },
    'flex-context': { key: '', value: '' },
  });
  const [failure, setFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  /** The part as it will be stored: unchanged keys exactly as they are, edited ones as typed. */
  const result = (part: Part) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(stored[part])) {
      if (removed[part].includes(k)) continue;
      out[k] = k in edits[part] ? typed(edits[part][k]) : v;
    }
    const extra = added[part];
    if (extra.key.trim()) out[extra.key.trim()] = typed(extra.value);
    return out;
  };

  async function save(e: FormEvent) {
    e.preventDefault();
    setFailure(null);
    setSaved(false);
    try {
      await request(`${API}/assets/${asset.id}`, {
        method: 'PATCH',
        json: { flex_model: JSON.stringify(result('flex-model')), flex_context: JSON.stringify(result('flex-context')) },
      });
      setSaved(true);
      onStored();
    } catch (err) {
      setFailure(err);
    }
  }

  return (
    <>
      <form onSubmit={save} aria-label="Stored flex settings" noValidate>
        <div className="two-columns">
          {(['flex-model', 'flex-context'] as const).map((part) => (
            <section key={part} aria-label={`Stored ${part}`}>
              <h3>{part}</h3>
              {Object.keys(stored[part]).length ? (
                <dl className="kv">
                  {Object.entries(stored[part]).map(([k, v]) => {
                    const gone = removed[part].includes(k);
                    const id = `stored-${part}-${k}`;
                    return (
                      <div key={k} className={gone ? 'removed' : undefined}>
                        <dt>
                          <label htmlFor={id}>{k}</label>
                        </dt>
                        <dd>
                          <input
                            id={id}
                            value={edits[part][k] ?? shown(v)}
                            disabled={!canEdit || gone}
                            spellCheck={false}
                            onChange={(e) => setEdits((all) => ({ ...all, [part]: { ...all[part], [k]: e.target.value } }))}
                          />
                          {canEdit && (
                            <button
                              type="button"
                              aria-label={`${gone ? 'Keep' : 'Remove'} ${k}`}
                              onClick={() =>
                                setRemoved((all) => ({
                                  ...all,
                                  [part]: gone ? all[part].filter((x) => x !== k) : [...all[part], k],
                                }))
                              }
                            >
                              {gone ? 'Keep' : 'Remove'}
                            </button>
                          )}
                        </dd>
                      </div>
                    );
                  })}
                </dl>
              ) : (
                <Empty>None stored; schedules use the sensor and asset attributes.</Empty>
              )}
              {canEdit && (
                <div className="grid-form">
                  <Field label={`New ${part} key`}>
                    <input
                      value={added[part].key}
                      spellCheck={false}
                      onChange={(e) => setAdded((all) => ({ ...all, [part]: { ...all[part], key: e.target.value } }))}
                    />
                  </Field>
                  <Field label={`New ${part} value`} hint="e.g. 10 kW, 0.95, true or JSON">
                    <input
                      value={added[part].value}
                      spellCheck={false}
                      onChange={(e) => setAdded((all) => ({ ...all, [part]: { ...all[part], value: e.target.value } }))}
                    />
                  </Field>
                </div>
              )}
            </section>
          ))}
        </div>
        {canEdit && (
          <div className="actions">
            <button type="submit">Save settings</button>
            {saved && (
              <span role="status" className="ok">
                Saved.
              </span>
            )}
          </div>
        )}
      </form>
      <ErrorNotice error={failure} />
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
