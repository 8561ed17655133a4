/** Field messages flattened to dotted paths: `soc-targets.0.value` → ["Not a valid number."]. */
export type FieldMessages = Record<string, string[]>;

/**
 * An API answer that is not a success, readable for people: a sentence for the form and, for
 * 422 answers, the messages of each field, so forms can show them next to their inputs.
 */
export class ApiError extends Error {
  readonly fields: FieldMessages;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const { text, fields } = describe(status, body);
    super(text);
    this.name = 'ApiError';
    this.fields = fields;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Flattens a marshmallow-style field tree into dotted paths. */
export function flattenFields(tree: unknown, prefix = ''): FieldMessages {
  const out: FieldMessages = {};
  if (Array.isArray(tree)) {
    out[prefix || '_schema'] = tree.map(String);
  } else if (isRecord(tree)) {
    for (const [key, value] of Object.entries(tree)) Object.assign(out, flattenFields(value, prefix ? `${prefix}.${key}` : key));
  } else if (tree !== undefined && tree !== null) {
    out[prefix || '_schema'] = [String(tree)];
  }
  return out;
}

function describe(status: number, body: unknown): { text: string; fields: FieldMessages } {
  if (!isRecord(body)) return { text: status ? `The server answered ${status}.` : 'No answer from the server.', fields: {} };
  const { message, errors, detail } = body;
  if (Array.isArray(errors) && errors.length) return { text: errors.map(String).join(' '), fields: {} };
  if (typeof message === 'string') return { text: detail ? `${message}: ${String(detail)}` : message, fields: {} };
  if (isRecord(message)) {
    // 422: {"json": {...}} or {"json": "a sentence"}; the location key itself is of no interest here.
    const inner = Object.values(message);
    if (inner.length === 1 && typeof inner[0] === 'string') return { text: inner[0], fields: {} };
    const fields: FieldMessages = {};
    for (const part of inner) Object.assign(fields, flattenFields(part));
    const schema = fields._schema;
    const listed = Object.entries(fields)
      .filter(([k]) => k !== '_schema')
      .map(([k, v]) => `${k}: ${v.join(' ')}`);
    return { text: [...(schema ?? []), ...listed].join(' ') || 'The request was not accepted.', fields };
  }
  return { text: `The server answered ${status}.`, fields: {} };
}

/**
 * A readable sentence for anything thrown.
 * @param err an ApiError, Error or anything else.
 * @returns text fit to show, never "[object Object]".
 */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return 'Something went wrong.';
  }
}
