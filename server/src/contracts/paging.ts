import { z } from 'zod';
import { intText } from './fields.ts';

/**
 * FlexMeasures 1.0's list parameters (its `PaginationSchema`): `page`, `per-page` (default 10),
 * a `filter` text, `sort-by` among the listing's keys and `sort-dir`, each also in the snake-case
 * spelling 1.0 keeps as a legacy alias. For listings filtered and sorted in memory.
 */
export function pageQuery<K extends string>(sortKeys: readonly [K, ...K[]]) {
  return z.object({
    page: intText.pipe(z.number().min(1)).optional(),
    'per-page': intText.pipe(z.number().min(1).max(10_000)).optional(),
    per_page: intText.pipe(z.number().min(1).max(10_000)).optional(),
    filter: z.string().max(1000).optional(),
    'sort-by': z.enum(sortKeys).optional(),
    sort_by: z.enum(sortKeys).optional(),
    'sort-dir': z.enum(['asc', 'desc']).optional(),
    sort_dir: z.enum(['asc', 'desc']).optional(),
  });
}

export type PageQuery<K extends string> = z.infer<ReturnType<typeof pageQuery<K>>>;

/** 1.0's page answer: the page, how many there are in all and how many the filter left. */
export interface Page<T> {
  data: T[];
  'num-records': number;
  'filtered-records': number;
}

type SortKey<T, K extends string> = (t: T, key: K) => string | number | null;

/** Sorts a copy when both `sort-by` and `sort-dir` are given, as 1.0 does (nulls last ascending, as its PostgreSQL orders them); else keeps the order. */
export function sortedAsAsked<T, K extends string>(q: PageQuery<K>, list: T[], sortKey: SortKey<T, K>): T[] {
  const by = q['sort-by'] ?? q.sort_by;
  const dir = (q['sort-dir'] ?? q.sort_dir) === 'desc' ? -1 : 1;
  if (!by || !(q['sort-dir'] ?? q.sort_dir)) return list;
  const compare = (a: string | number | null, b: string | number | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
  return [...list].sort((a, b) => dir * compare(sortKey(a, by), sortKey(b, by)));
}

/**
 * The asked page of the filtered records, sorted as asked.
 * @param total how many records there are before the filter.
 * @param found the filtered records.
 */
export function pageOf<T, K extends string>(q: PageQuery<K>, total: number, found: T[], sortKey: SortKey<T, K>): Page<T> {
  const perPage = q['per-page'] ?? q.per_page ?? 10;
  const from = ((q.page ?? 1) - 1) * perPage;
  const data = sortedAsAsked(q, found, sortKey).slice(from, from + perPage);
  return { data, 'num-records': total, 'filtered-records': found.length };
}

/** The response schema of a page of `item`s. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.looseObject({ data: z.array(item), 'num-records': z.number(), 'filtered-records': z.number() });
