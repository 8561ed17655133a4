import type { Knex } from 'knex';

export const ANNOTATION_TYPES = ['alert', 'holiday', 'label', 'feedback', 'warning', 'error'] as const;

export interface Annotation {
  id: number;
  content: string;
  startMs: number;
  endMs: number;
  type: (typeof ANNOTATION_TYPES)[number];
  beliefTimeMs: number;
  sourceId: number;
}

/** What an annotation is about: exactly one account, asset or sensor. */
export type AnnotationSubject = { account_id: number } | { asset_id: number } | { sensor_id: number };

/** An annotation with the name of its source. */
export type NamedAnnotation = Annotation & { sourceName: string };

/**
 * The annotations of an asset and (when given) of its account that overlap a window: ending after
 * `afterMs` and starting before `beforeMs` (both exclusive), recorded in `(beliefsAfterMs, beliefsBeforeMs]`.
 * @returns them in the order they were made.
 */
export async function assetAnnotations(
  db: Knex,
  subject: { assetId: number; accountId: number | null },
  window: { afterMs?: number; beforeMs?: number; beliefsAfterMs?: number; beliefsBeforeMs?: number },
): Promise<NamedAnnotation[]> {
  const q = db('annotation as a')
    .join('data_source as s', 's.id', 'a.source_id')
    .where((w) => {
      w.where('a.asset_id', subject.assetId);
      if (subject.accountId !== null) w.orWhere('a.account_id', subject.accountId);
    })
    .orderBy('a.id')
    .select<Record<string, string | number>[]>('a.*', 's.name as source_name');
  if (window.afterMs !== undefined) q.where('a.end_ms', '>', window.afterMs);
  if (window.beforeMs !== undefined) q.where('a.start_ms', '<', window.beforeMs);
  if (window.beliefsAfterMs !== undefined) q.where('a.belief_time_ms', '>', window.beliefsAfterMs);
  if (window.beliefsBeforeMs !== undefined) q.where('a.belief_time_ms', '<=', window.beliefsBeforeMs);
  return (await q).map((r) => ({
    id: Number(r.id),
    content: String(r.content),
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    type: r.type as Annotation['type'],
    beliefTimeMs: Number(r.belief_time_ms),
    sourceId: Number(r.source_id),
    sourceName: String(r.source_name),
  }));
}
