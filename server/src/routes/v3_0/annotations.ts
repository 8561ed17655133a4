import { DateTime } from 'luxon';
import { z } from 'zod';
import { awareDateTime } from '../../contracts/fields.ts';
import { formatStart } from '../../domain/time.ts';
import { parseInput } from '../../http/validate.ts';
import type { AppContext } from '../../http/context.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { addAnnotation, ANNOTATION_TYPES, type Annotation, type AnnotationSubject } from '../../store/annotations.ts';
import { getOrCreateSource } from '../../store/sources.ts';
import { accountAccess, idParams, loadAccount, loadAsset, loadSensor, ownedAccess, pathId } from './load.ts';

/** Body of POST /<accounts|assets|sensors>/<id>/annotations (FlexMeasures 1.0, API v3.0-29). */
const annotationBody = z
  .strictObject({
    content: z.string().max(1024),
    start: awareDateTime,
    end: awareDateTime,
    type: z.enum(ANNOTATION_TYPES).optional(),
    prior: awareDateTime.nullable().optional(),
  })
  .superRefine((a, ctx) => {
    if (a.end <= a.start) ctx.addIssue({ code: 'custom', message: 'end must be after start', path: [] });
  });

const presentAnnotation = (a: Annotation, zone: string) => {
  const at = (ms: number) => formatStart(DateTime.fromMillis(ms, { zone }));
  return { id: a.id, source: a.sourceId, content: a.content, start: at(a.startMs), end: at(a.endMs), type: a.type, prior: at(a.beliefTimeMs) };
};

/**
 * Stores the annotation of the body on a subject the caller may add to: 201 when new, 200 when
 * the same annotation was there already.
 */
async function annotate(ctx: AppContext, subject: AnnotationSubject): Promise<void> {
  const body = parseInput(annotationBody, ctx.request.body, 'json');
  const user = ctx.state.user!;
  const { annotation, created } = await ctx.services.db.transaction(async (trx) => {
    const source = await getOrCreateSource(trx, { name: user.username, type: 'user', userId: user.id, accountId: user.account_id });
    return addAnnotation(trx, subject, {
      content: body.content,
      startMs: body.start.toMillis(),
      endMs: body.end.toMillis(),
      type: body.type ?? 'label',
      beliefTimeMs: body.prior?.toMillis() ?? Date.now(),
      sourceId: source.id,
    });
  });
  ctx.status = created ? 201 : 200;
  ctx.body = presentAnnotation(annotation, body.start.zoneName ?? 'UTC');
}

/** Annotations need create-children on what they annotate, as in FlexMeasures. */
export const annotationRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/accounts/:id/annotations',
    summary: 'Add an annotation to an account.',
    request: { params: idParams, json: annotationBody },
    async handler(ctx) {
      const account = await loadAccount(ctx, pathId(ctx));
      authorize(ctx.state.user!, 'create-children', accountAccess(account));
      await annotate(ctx, { account_id: account.id });
    },
  },
  {
    method: 'POST',
    path: '/assets/:id/annotations',
    summary: 'Add an annotation to an asset.',
    request: { params: idParams, json: annotationBody },
    async handler(ctx) {
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'asset', asset.account_id));
      await annotate(ctx, { asset_id: asset.id });
    },
  },
  {
    method: 'POST',
    path: '/sensors/:id/annotations',
    summary: 'Add an annotation to a sensor.',
    request: { params: idParams, json: annotationBody },
    async handler(ctx) {
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'sensor', sensor.account_id));
      await annotate(ctx, { sensor_id: sensor.id });
    },
  },
];
