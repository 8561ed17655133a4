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
 * The one error representation of the server: a domain kind, and for the HTTP chain the status
 * and exact JSON body that the reference implementation sends for that case. Handlers throw
 * these; the error middleware renders them unchanged; every other edge reads `kind`.
 */
export class AppError extends Error {
  /** Undefined for an edge's own failure (malformed request, capacity, internal). */
  readonly kind: ErrorKind | undefined;
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
    /** Where the status says less than the case (the reference answers some clashes with 400). */
    kind?: ErrorKind,
  ) {
    super(body.message === undefined ? String(body.status) : messageText(body.message));
    this.name = 'AppError';
    this.kind = kind ?? kindOfStatus[status];
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
  new AppError(401, {
    message: 'You could not be properly authenticated for this content or functionality.',
    status: 'UNAUTHORIZED',
  });

/** The reference's 403; `message` says why where the refused party is not the caller (an automation's maker). */
export const forbidden = (message = 'You cannot be authorized for this content or functionality.') =>
  new AppError(403, { result: 'Rejected', status: 'INVALID_SENDER', message });

/** Werkzeug-style HTTP error: `{"message", "status": <int>}`. */
export const httpError = (status: number, message: string) => new AppError(status, { message, status });

export const notFound = (message: string) => httpError(404, message);

export const malformedJson = () => httpError(400, 'The browser (or proxy) sent a request that this server could not understand.');

/** 422 with field messages under their request location. */
export const unprocessable = (location: Location, fields: FieldErrors | string) =>
  new AppError(422, { message: { [location]: fields }, result: 'Rejected', status: 'UNPROCESSABLE_ENTITY' });

/**
 * Messages under a field path, nested the way marshmallow nests list items and sub-fields:
 * `["soc-gain", 0]` → `{"soc-gain": {"0": [message]}}`.
 */
export function fieldTree(path: (string | number)[], messages: string[]): FieldErrors {
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
  new AppError(httpStatus, { [resultKey]: 'Rejected', status: statusName, message });

/** 403 for data that would change stored values with the same belief timing (note `results`). */
export const invalidReplacement = () =>
  rejected(
    403,
    'INVALID_REPLACEMENT',
    'Some of the data represents a replacement, which is reserved for servers in play mode. Enable play mode or update the prior in your request.',
    'results',
  );
