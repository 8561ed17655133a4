/**
 * Search terms of FlexMeasures 1.0's `filter` parameter, split as a shell splits words (as 1.0
 * does), quotes keeping spaces: `solar "ACME corp"` is two terms.
 */
export const searchTerms = (filter: string): string[] =>
  [...filter.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]).filter((t) => t !== '');
