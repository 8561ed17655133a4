import { tooDeepMessage, tooDeepPath } from '../contracts/fields.ts';
import { malformedJson, unprocessable, type Location } from '../errors.ts';
import { fieldTree } from '../contracts/validate.ts';

/** Bare `NaN` / `Infinity` where a JSON value stands (Python's json writes them). */
const specialNumbers = /(?<=[[,:]\s*)(-?Infinity|NaN)(?=\s*[,\]}])/g;

/** What a bare NaN or Infinity is read as, so that the check below can name its field. */
const SPECIAL_NUMBER = '\u0000special number';

const specialMessage = 'Special numeric values (nan or infinity) are not permitted.';
const nulMessage = 'Text may not contain NUL characters.';

/**
 * Parses a JSON request body; Python clients may write NaN or Infinity, which are read as a
 * marker that `checkJsonBody` refuses with the field named.
 * @param text the body text.
 * @returns the value; throws the reference's 400 for text that is no JSON.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const marked = text.replace(specialNumbers, JSON.stringify(SPECIAL_NUMBER));
    if (marked === text) throw malformedJson();
    try {
      return JSON.parse(marked);
    } catch {
      throw malformedJson();
    }
  }
}

/**
 * Refuses a parsed body nested deeper than `MAX_JSON_DEPTH` (it would overflow the stack of
 * recursive code later, `JSON.stringify` included), carrying NaN or Infinity, or text with NUL
 * characters (PostgreSQL cannot store or even compare them): a 422 naming the fields, before
 * any handler sees the body.
 * @param body the parsed body.
 * @param location where it came from.
 */
export function checkJsonBody(body: unknown, location: Location = 'json'): void {
  const deep = tooDeepPath(body);
  if (deep) throw unprocessable(location, fieldTree([[deep, tooDeepMessage]]));
  const problems: [PropertyKey[], string][] = [];
  // Depth is bounded now, so a plain stack walk is safe; report a handful, not a million.
  const stack: [unknown, PropertyKey[]][] = [[body, []]];
  while (stack.length && problems.length < 10) {
    const [value, path] = stack.pop()!;
    if (value === SPECIAL_NUMBER) problems.push([path, specialMessage]);
    else if (typeof value === 'string' && value.includes('\0')) problems.push([path, nulMessage]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        if (key.includes('\0')) problems.push([path, nulMessage]);
        else stack.push([child, [...path, key]]);
      }
    }
  }
  if (problems.length) throw unprocessable(location, fieldTree(problems));
}
