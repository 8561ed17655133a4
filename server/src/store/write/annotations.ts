import type { Knex } from 'knex';
import type { Annotation, AnnotationSubject } from '../annotations.ts';

/**
 * Links an annotation to its subject. The same content, period, type and source on the same
 * subject is the same annotation, so posting it again changes nothing.
 * @returns the annotation and whether it is new.
 */
export async function addAnnotation(
  trx: Knex.Transaction,
  subject: AnnotationSubject,
  a: Omit<Annotation, 'id'>,
): Promise<{ annotation: Annotation; created: boolean }> {
  const row = {
    content: a.content,
    start_ms: a.startMs,
    end_ms: a.endMs,
    type: a.type,
    source_id: a.sourceId,
    ...subject,
  };
  const existing = await trx('annotation').where(row).first<{ id: number; belief_time_ms: number } | undefined>('id', 'belief_time_ms');
  if (existing) return { annotation: { ...a, id: Number(existing.id), beliefTimeMs: Number(existing.belief_time_ms) }, created: false };
  const [{ id }] = await trx('annotation')
    .insert({ ...row, belief_time_ms: a.beliefTimeMs })
    .returning<{ id: number }[]>('id');
  return { annotation: { ...a, id: Number(id) }, created: true };
}
