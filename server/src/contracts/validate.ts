import type { z } from 'zod';
import { unprocessable, type Location } from '../errors.ts';

type Issue = z.core.$ZodIssue;
type FieldTree = { [key: string]: FieldTree | string[] };

/**
 * Validates one part of a request against its schema.
 * @param schema the zod schema of that part.
 * @param data the raw part (parsed JSON body, query object or path params).
 * @param location where the part came from; names the top key of the 422 body.
 * @returns the parsed value; throws a 422 AppError with per-field messages otherwise.
 */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, location: Location): z.output<S> {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  throw unprocessable(location, fieldMessages(result.error.issues));
}

/**
 * Turns zod issues into the nested field-message tree of marshmallow-style APIs:
 * `{"start": ["Not a valid aware datetime."], "values": {"3": ["Not a valid number."]}}`,
 * with schema-level problems under `_schema`.
 * @param issues the issues of a failed parse.
 * @returns the tree.
 */
export function fieldMessages(issues: readonly Issue[]): FieldTree {
  const tree: FieldTree = {};
  // zod still runs length checks on a wrongly typed value (an array for a string); the type
  // error says it all, as in marshmallow.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => JSON.stringify(i.path)));
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' && wrongType.has(JSON.stringify(issue.path))) continue;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(tree, [...issue.path, key], 'Unknown field.');
    } else if (issue.code === 'invalid_union' && issue.errors.length) {
      // Report the alternative that got furthest instead of a vague "invalid input".
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0];
      for (const sub of best) add(tree, [...issue.path, ...sub.path], messageOf(sub));
    } else {
      add(tree, issue.path, messageOf(issue));
    }
  }
  return tree;
}

/**
 * Builds the same tree from messages found outside zod (body checks).
 * @param entries pairs of field path and message.
 * @returns the tree.
 */
export function fieldTree(entries: readonly [readonly PropertyKey[], string][]): FieldTree {
  const tree: FieldTree = {};
  for (const [path, message] of entries) add(tree, path, message);
  return tree;
}

function depth(issues: readonly Issue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

function add(tree: FieldTree, path: readonly PropertyKey[], message: string): void {
  const keys = path.length ? path.map(String) : ['_schema'];
  let node = tree;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!next || Array.isArray(next)) node[key] = {};
    node = node[key] as FieldTree;
  }
  const last = keys[keys.length - 1];
  const messages = Array.isArray(node[last]) ? (node[last] as string[]) : (node[last] = []);
  if (!messages.includes(message)) messages.push(message);
}

const typeMessages: Record<string, string> = {
  int: 'Not a valid integer.',
  number: 'Not a valid number.',
  string: 'Not a valid string.',
  boolean: 'Not a valid boolean.',
  date: 'Not a valid datetime.',
};

/** The marshmallow wording of one zod issue, which existing clients and tests compare against. */
function messageOf(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (!('input' in issue) || issue.input === undefined) return 'Missing data for required field.';
      if (issue.input === null) return 'Field may not be null.';
      if (issue.expected === 'number' && typeof issue.input === 'number') {
        return 'Special numeric values (nan or infinity) are not permitted.';
      }
      // A schema-specific message (e.g. on integer fields) wins over the generic wording.
      if (!issue.message.startsWith('Invalid input')) return issue.message;
      return typeMessages[issue.expected] ?? 'Invalid input type.';
    }
    case 'invalid_value':
      return `Must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'too_small':
      // A list's own message (a recurring target without a day) wins over the generic wording.
      if (issue.origin === 'array' && !issue.message.startsWith('Too small')) return issue.message;
      if (issue.origin === 'string') return `Shorter than minimum length ${issue.minimum}.`;
      if (issue.origin === 'array') return `Shorter than minimum length ${issue.minimum}.`;
      return `Must be greater than ${issue.inclusive ? 'or equal to ' : ''}${issue.minimum}.`;
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array') return `Longer than maximum length ${issue.maximum}.`;
      return `Must be less than ${issue.inclusive ? 'or equal to ' : ''}${issue.maximum}.`;
    case 'invalid_format':
      return issue.format === 'email' ? 'Not a valid email address.' : issue.message;
    default:
      return issue.message;
  }
}
