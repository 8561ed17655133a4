import { useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import type { Asset } from '../../api/types.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { storedFlex } from '../../lib/attributes.ts';
import { Field } from '../Field.tsx';
import { SaveBar } from '../Form.tsx';
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

/** Stores the asset's flex-model and flex-context, each as a JSON text. */
const storeFlex = (asset: Asset, model: Record<string, unknown>, context: Record<string, unknown>) =>
  request(`${API}/assets/${asset.id}`, {
    method: 'PATCH',
    json: { flex_model: JSON.stringify(model), flex_context: JSON.stringify(context) },
  });

/** Edited texts by key (a key not here is as stored), keys removed, and the key being added. */
interface PartEdits {
  edits: Record<string, string>;
  removed: string[];
  added: { key: string; value: string };
}

const noEdits: PartEdits = { edits: {}, removed: [], added: { key: '', value: '' } };

/** The part as it will be stored: unchanged keys exactly as they are, edited ones as typed. */
function result(stored: Record<string, unknown>, { edits, removed, added }: PartEdits) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) {
    if (removed.includes(k)) continue;
    out[k] = k in edits ? typed(edits[k]) : v;
  }
  if (added.key.trim()) out[added.key.trim()] = typed(added.value);
  return out;
}

/**
 * The flex-model and flex-context stored on the asset, which every trigger starts from: every
 * stored key as an editable field (a value left unchanged is sent back exactly as stored), a key
 * to add, and raw JSON to edit whole (checked here for JSON, by the server for its fields). The
 * fields are edits over the asset as stored: when the Schedule panel stores its defaults, keys
 * typed here and not yet saved stay, and every other key shows what is stored now.
 */
export function StoredFlexConfig({ asset, canEdit, onStored }: Props) {
  const { model, context } = storedFlex(asset);
  const stored: Record<Part, Record<string, unknown>> = { 'flex-model': model, 'flex-context': context };
  const [edits, setEdits] = useState<Record<Part, PartEdits>>({ 'flex-model': noEdits, 'flex-context': noEdits });
  const submitting = useSubmit();

  function save(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      await storeFlex(asset, result(model, edits['flex-model']), result(context, edits['flex-context']));
      setEdits({ 'flex-model': noEdits, 'flex-context': noEdits });
      onStored();
    });
  }

  return (
    <>
      <form onSubmit={save} aria-label="Stored flex settings" noValidate>
        <div className="two-columns">
          {(['flex-model', 'flex-context'] as const).map((part) => (
            <StoredPart
              key={part}
              part={part}
              stored={stored[part]}
              edits={edits[part]}
              onChange={(next) => setEdits((all) => ({ ...all, [part]: next }))}
              canEdit={canEdit}
            />
          ))}
        </div>
        {canEdit && (
          <SaveBar saved={submitting.saved}>
            <button type="submit">Save settings</button>
          </SaveBar>
        )}
      </form>
      <ErrorNotice error={submitting.error} />
      {canEdit && (
        <RawJsonEditor asset={asset} model={model} context={context} onStored={onStored} key={`${asset.flex_model}${asset.flex_context}`} />
      )}
    </>
  );
}

/** One part's stored keys as fields, each removable, and a key to add. */
function StoredPart({
  part,
  stored,
  edits,
  onChange,
  canEdit,
}: {
  part: Part;
  stored: Record<string, unknown>;
  edits: PartEdits;
  onChange: (edits: PartEdits) => void;
  canEdit: boolean;
}) {
  const { removed, added } = edits;
  return (
    <section aria-label={`Stored ${part}`}>
      <h3>{part}</h3>
      {Object.keys(stored).length ? (
        <dl className="kv">
          {Object.entries(stored).map(([k, v]) => {
            const gone = removed.includes(k);
            const id = `stored-${part}-${k}`;
            return (
              <div key={k} className={gone ? 'removed' : undefined}>
                <dt>
                  <label htmlFor={id}>{k}</label>
                </dt>
                <dd>
                  <input
                    id={id}
                    value={edits.edits[k] ?? shown(v)}
                    disabled={!canEdit || gone}
                    spellCheck={false}
                    onChange={(e) => onChange({ ...edits, edits: { ...edits.edits, [k]: e.target.value } })}
                  />
                  {canEdit && (
                    <button
                      type="button"
                      aria-label={`${gone ? 'Keep' : 'Remove'} ${k}`}
                      onClick={() => onChange({ ...edits, removed: gone ? removed.filter((x) => x !== k) : [...removed, k] })}
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
              value={added.key}
              spellCheck={false}
              onChange={(e) => onChange({ ...edits, added: { ...added, key: e.target.value } })}
            />
          </Field>
          <Field label={`New ${part} value`} hint="e.g. 10 kW, 0.95, true or JSON">
            <input
              value={added.value}
              spellCheck={false}
              onChange={(e) => onChange({ ...edits, added: { ...added, value: e.target.value } })}
            />
          </Field>
        </div>
      )}
    </section>
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
  const submitting = useSubmit();
  const parsed = { 'flex-model': parseObject(texts['flex-model']), 'flex-context': parseObject(texts['flex-context']) };
  const valid = 'value' in parsed['flex-model'] && 'value' in parsed['flex-context'];

  function save(e: FormEvent) {
    e.preventDefault();
    const m = parsed['flex-model'];
    const c = parsed['flex-context'];
    if (!('value' in m) || !('value' in c)) return;
    void submitting.run(async () => {
      await storeFlex(asset, m.value, c.value);
      onStored();
    });
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
        <SaveBar saved={submitting.saved}>
          <button type="submit" disabled={!valid}>
            Save JSON
          </button>
        </SaveBar>
      </form>
      <ErrorNotice error={submitting.error} />
    </details>
  );
}
