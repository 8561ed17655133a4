import { DateTime } from 'luxon';
import { z } from 'zod';
import { awareDateTime } from '../../contracts/fields.ts';
import { formatStart } from '../../domain/time.ts';
import type { Knex } from 'knex';
import { route, type Loaded } from '../../http/routes.ts';
import { annotate } from '../../commands/annotations.ts';
import type { CommandContext } from '../../commands/context.ts';
import type { Principal } from '../../policies/principal.ts';
import { ANNOTATION_TYPES, type Annotation, type AnnotationSubject } from '../../store/annotations.ts';
import { accountById, assetById, idParams, sensorById } from '../load.ts';

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
  return {
    id: a.id,
    source: a.sourceId,
    content: a.content,
    start: at(a.startMs),
    end: at(a.endMs),
    type: a.type,
    prior: at(a.beliefTimeMs),
  };
};

type AnnotationBody = z.output<typeof annotationBody>;

/**
 * Stores the annotation of the body on a subject the caller may add to: 201 when new, 200 when
 * the same annotation was there already.
 */
async function annotateWith(
  call: { context: CommandContext<Knex.Transaction>; principal: Principal },
  body: AnnotationBody,
  subject: AnnotationSubject,
) {
  const { context, principal } = call;
  const { annotation, created } = await annotate(context, principal, {
    subject,
    annotation: {
      content: body.content,
      startMs: body.start.toMillis(),
      endMs: body.end.toMillis(),
      type: body.type ?? 'label',
      beliefTimeMs: body.prior?.toMillis() ?? context.clock.now(),
    },
  });
  return { created, body: presentAnnotation(annotation, body.start.zoneName ?? 'UTC') };
}

type Annotated = Awaited<ReturnType<typeof annotateWith>>;

const annotationResponse = {
  status: (r: Annotated) => (r.created ? 201 : 200),
  schema: z.looseObject({ id: z.number(), source: z.number(), content: z.string(), start: z.string(), end: z.string(), type: z.string() }),
  present: (r: Annotated) => r.body,
};

/**
 * `POST /<things>/<id>/annotations`. Annotations need create-children on what they annotate, as in
 * FlexMeasures.
 */
const annotationRoute = (
  things: string,
  thing: string,
  find: (db: Knex, id: number) => Promise<Loaded<{ id: number }>>,
  subject: (id: number) => AnnotationSubject,
) =>
  route({
    method: 'POST',
    path: `/${things}/:id/annotations`,
    summary: `Add an annotation to ${thing}.`,
    request: { params: idParams, json: annotationBody },
    load: async ({ db, params }) => ({ annotated: await find(db, params.id) }),
    transaction: true,
    command: (call) => annotateWith(call, call.body, subject(call.loaded.annotated.id)),
    response: annotationResponse,
  });

export const annotationRoutes = [
  annotationRoute(
    'accounts',
    'an account',
    (db, id) => accountById(db, id, 'create-children'),
    (id) => ({ account_id: id }),
  ),
  annotationRoute(
    'assets',
    'an asset',
    (db, id) => assetById(db, id, 'create-children'),
    (id) => ({ asset_id: id }),
  ),
  annotationRoute(
    'sensors',
    'a sensor',
    (db, id) => sensorById(db, id, 'create-children'),
    (id) => ({ sensor_id: id }),
  ),
];
