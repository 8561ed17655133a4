/**
 * The kinds of refusal that commands, policies and resolution code mean, whatever edge reports
 * them: the job table records them, automations and devices decide on them, the CLI words them.
 * Only the HTTP chain speaks in statuses and bodies.
 */
export type ErrorKind = 'refused' | 'invalid' | 'not-found' | 'conflict';

/** The kind a status stands for; statuses only edges answer with (413, 5xx…) stand for none. */
const kindOfStatus: Partial<Record<number, ErrorKind>> = {
  400: 'invalid',
  401: 'refused',
  403: 'refused',
  404: 'not-found',
  409: 'conflict',
  422: 'invalid',
};

/**
 * A field that is not right, and why: its path starts at the request location, e.g.
 * `{ path: ['json', 'flex-model', 'soc-min'], messages: ['Not a valid number.'] }`. A location
 * refused as a whole carries one text instead of messages.
 */
export interface FieldProblem {
  path: string[];
  messages: string[] | string;
}

/**
 * How the reference words a refusal on the wire, which only the HTTP edge reads: a message with
 * its status code (`plain`), the sign-in and sender refusals, field messages under their
 * locations (`fields`), a USEF-style envelope, or an edge's own body, sent as it is.
 */
export type Wording =
  | { shape: 'plain'; status: number }
  | { shape: 'unauthorized' }
  | { shape: 'sender' }
  | { shape: 'fields' }
  | { shape: 'envelope'; status: number; statusName: string; resultKey: string }
  | { shape: 'own'; status: number; body: Record<string, unknown> };

/** A refusal as commands, policies and resolution code mean it. */
export interface Refusal {
  /** Undefined for an edge's own failure (malformed request, capacity, internal). */
  kind: ErrorKind | undefined;
  /** For people: a text, or the field messages in words (`field.path: message`). */
  message: string;
  /** For `invalid` input: each field's path and messages. */
  fields?: FieldProblem[];
  /** What a clash concerns, beside the message (the taken e-mail address). */
  detail?: string;
  wording: Wording;
  headers?: Record<string, string>;
}

/**
 * The one error of the server: a domain kind with its message, field paths and detail, which
 * every edge reads (the job table, automations, the MQTT bridge, the CLI), and the reference's
 * wording, which the HTTP chain turns into a status and body in one place (`http/errorAnswer.ts`).
 */
export class AppError extends Error implements Refusal {
  readonly kind: ErrorKind | undefined;
  readonly fields: FieldProblem[] | undefined;
  readonly detail: string | undefined;
  readonly wording: Wording;
  readonly headers: Record<string, string>;
  constructor(refusal: Refusal);
  /** An edge's own answer: the status and exact body it sends; the kind follows from the status unless given. */
  constructor(status: number, body: Record<string, unknown>, headers?: Record<string, string>, kind?: ErrorKind);
  constructor(first: Refusal | number, body: Record<string, unknown> = {}, headers: Record<string, string> = {}, kind?: ErrorKind) {
    const r: Refusal =
      typeof first === 'number'
        ? {
            kind: kind ?? kindOfStatus[first],
            message: body.message === undefined ? String(body.status) : messageText(body.message),
            wording: { shape: 'own', status: first, body },
            headers,
          }
        : first;
    super(r.message);
    this.name = 'AppError';
    this.kind = r.kind;
    this.fields = r.fields;
    this.detail = r.detail;
    this.wording = r.wording;
    this.headers = r.headers ?? {};
  }
}

/** Whether `err` is a refusal of one of the domain kinds (not an edge's or a runtime failure). */
export const isDomainError = (err: unknown): err is AppError & { kind: ErrorKind } => err instanceof AppError && err.kind !== undefined;

/**
 * A body's message for people (jobs, notifications, the command line): a text as it is; field
 * messages per location as `field.path: message`, joined by `; `.
 */
export function messageText(message: unknown): string {
  const fields = (tree: unknown, path: string[]): string[] =>
    Array.isArray(tree)
      ? [`${path.join('.')}: ${tree.join(' ')}`]
      : tree && typeof tree === 'object'
        ? Object.entries(tree).flatMap(([key, inner]) => fields(inner, [...path, key]))
        : [path.length ? `${path.join('.')}: ${String(tree)}` : String(tree)];
  if (typeof message === 'string') return message;
  return Object.values(message && typeof message === 'object' ? message : { message })
    .flatMap((tree) => fields(tree, []))
    .join('; ');
}

/** Field messages per location, e.g. {"json": {"start": ["Not a valid aware datetime."]}}. */
export type FieldErrors = Record<string, unknown>;
export type Location = 'json' | 'query' | 'path' | 'args_and_json' | 'form';

export const unauthorized = () =>
  new AppError({
    kind: 'refused',
    message: 'You could not be properly authenticated for this content or functionality.',
    wording: { shape: 'unauthorized' },
  });

/** The reference's 403; `message` says why where the refused party is not the caller (an automation's maker). */
export const forbidden = (message = 'You cannot be authorized for this content or functionality.') =>
  new AppError({ kind: 'refused', message, wording: { shape: 'sender' } });

/**
 * Werkzeug-style HTTP error: a message and a status code. Its kind follows from the status
 * unless given (the reference answers some clashes with 400); `detail` names what clashed.
 */
export const httpError = (status: number, message: string, also: { kind?: ErrorKind; detail?: string } = {}) =>
  new AppError({ kind: also.kind ?? kindOfStatus[status], message, detail: also.detail, wording: { shape: 'plain', status } });

export const notFound = (message: string) => httpError(404, message);

/** A clash with what is stored (409 unless the reference says otherwise). */
export const conflict = (message: string, also: { status?: number; detail?: string } = {}) =>
  httpError(also.status ?? 409, message, { kind: 'conflict', detail: also.detail });

export const malformedJson = () => httpError(400, 'The browser (or proxy) sent a request that this server could not understand.');

/** The problems of a field tree, leaf by leaf in the tree's order. */
function problemsOf(tree: Record<string, unknown>, path: string[] = []): FieldProblem[] {
  return Object.entries(tree).flatMap(([key, inner]) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? problemsOf(inner as Record<string, unknown>, [...path, key])
      : [{ path: [...path, key], messages: inner as string[] | string }],
  );
}

/** The field tree of some problems, nested under their locations: the wire's shape of field messages. */
export function treeOf(fields: readonly FieldProblem[]): FieldErrors {
  const tree: FieldErrors = {};
  for (const f of fields) mergeFieldTrees(tree, fieldTree(f.path, f.messages));
  return tree;
}

/** 422 with field messages under their request location. */
export const unprocessable = (location: Location, fields: FieldErrors | string) =>
  new AppError({
    kind: 'invalid',
    message: messageText({ [location]: fields }),
    fields: problemsOf({ [location]: fields }),
    wording: { shape: 'fields' },
  });

/**
 * Messages under a field path, nested the way marshmallow nests list items and sub-fields:
 * `["soc-gain", 0]` → `{"soc-gain": {"0": [message]}}`.
 */
export function fieldTree(path: (string | number)[], messages: string[] | string): FieldErrors {
  return path.reduceRight<unknown>((inner, key) => ({ [String(key)]: inner }), messages) as FieldErrors;
}

/** Merges a field tree into another, appending messages where both have them. */
export function mergeFieldTrees(target: Record<string, unknown>, tree: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(tree)) {
    const here = target[key];
    if (Array.isArray(value)) target[key] = Array.isArray(here) ? [...here, ...value] : value;
    else if (here && typeof here === 'object' && !Array.isArray(here))
      mergeFieldTrees(here as Record<string, unknown>, value as Record<string, unknown>);
    else target[key] = value;
  }
}

/** 422 for one field, the common case in handlers. */
export const fieldError = (location: Location, field: string, message: string) => unprocessable(location, { [field]: [message] });

/** USEF-style envelope error: `{"result": "Rejected", "status": NAME, "message"}`. */
export const rejected = (httpStatus: number, statusName: string, message: string, resultKey = 'result') =>
  new AppError({ kind: kindOfStatus[httpStatus], message, wording: { shape: 'envelope', status: httpStatus, statusName, resultKey } });

/** 403 for data that would change stored values with the same belief timing (note `results`). */
export const invalidReplacement = () =>
  rejected(
    403,
    'INVALID_REPLACEMENT',
    'Some of the data represents a replacement, which is reserved for servers in play mode. Enable play mode or update the prior in your request.',
    'results',
  );
