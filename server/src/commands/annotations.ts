import type { Annotation, AnnotationSubject } from '../store/annotations.ts';
import { addAnnotation } from '../store/write/annotations.ts';
import { getOrCreateSource } from '../store/write/sources.ts';
import { forbidden } from '../errors.ts';
import { rightsOf, type Principal } from '../policies/principal.ts';
import type { Writes } from './context.ts';

/**
 * Annotates an account, asset or sensor, as a source of the principal's user (an automation's
 * maker). The caller has authorized the subject (create-children on it); the operator at the
 * command line is nobody's source and annotates nothing.
 * @returns the annotation and whether it is new: the same annotation posted again changes nothing.
 */
export async function annotate(
  context: Writes,
  principal: Principal,
  input: { subject: AnnotationSubject; annotation: Omit<Annotation, 'id' | 'sourceId'> },
): Promise<{ annotation: Annotation; created: boolean }> {
  const user = rightsOf(principal);
  if (!user) throw forbidden();
  const source = await getOrCreateSource(context.db, { name: user.username, type: 'user', userId: user.id, accountId: user.account_id });
  return addAnnotation(context.db, input.subject, { ...input.annotation, sourceId: source.id });
}
