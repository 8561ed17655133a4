import { z } from 'zod';
import { fixedDurationMs, id, jsonText, jsonValueText, text, timezone } from './fields.ts';
import { isValidUnit } from '../domain/units.ts';
import { flexContext, processFlexModel, storageFlexModel } from './flexModel.ts';

/**
 * JSON text holding an object that must also pass `schema`; the text's own object is kept
 * (not the parsed form), so what is stored is what the client sent.
 */
const checkedJsonText = (schema: z.ZodType) =>
  jsonText.superRefine((value, ctx) => {
    const result = schema.safeParse(value, { reportInput: true });
    if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ ...issue });
  });

/**
 * Stored flex configuration is validated like a trigger's, field by field: it may be partial,
 * since the trigger completes it (a storage flex-model and a flex-context are partial anyway).
 */
const storedFlexContext = checkedJsonText(flexContext);
const storedFlexModel = checkedJsonText(z.union([storageFlexModel, processFlexModel.partial()]));

const decimals = (v: number) => (String(v).split('.')[1] ?? '').replace(/e.*$/, '').length;

const coordinate = (name: 'Latitude' | 'Longitude', limit: number) =>
  z
    .number()
    .superRefine((v, ctx) => {
      const lower = name.toLowerCase();
      if (v < -limit) ctx.addIssue({ code: 'custom', message: `${name} ${v} exceeds the minimum ${lower} of -${limit} degrees.` });
      if (v > limit) ctx.addIssue({ code: 'custom', message: `${name} ${v} exceeds the maximum ${lower} of ${limit} degrees.` });
      if (decimals(v) > 7) ctx.addIssue({ code: 'custom', message: 'Latitudes and longitudes are limited to 7 decimal places.' });
    })
    .nullable();

const assetFields = {
  name: text(),
  latitude: coordinate('Latitude', 90).optional(),
  longitude: coordinate('Longitude', 180).optional(),
  generic_asset_type_id: id,
  attributes: jsonText.optional(),
  parent_asset_id: id.nullable().optional(),
  flex_context: storedFlexContext.optional(),
  flex_model: storedFlexModel.optional(),
  /** FlexMeasures 1.0: free text, and the asset's id in another system. */
  description: z.string().max(65_536).nullable().optional(),
  external_id: z.string().max(80).optional(),
  /** FlexMeasures 1.0 keeps this next to the attributes; Flexsite keeps it inside them. */
  sensors_to_show: jsonValueText.optional(),
  /** FlexMeasures 1.0: daily sensors shown as KPIs (`GET /assets/<id>/kpis`), as JSON text; kept in the attributes too. */
  sensors_to_show_as_kpis: jsonValueText
    .pipe(
      z
        .array(
          z.strictObject({ title: z.string().min(1).max(255), sensor: id, function: z.enum(['sum', 'min', 'max', 'mean']).optional() }),
        )
        .max(100),
    )
    .optional(),
};

/** Body of POST /assets. Leaving out `account_id` makes a public asset (admins only). */
export const assetCreate = z.strictObject({ ...assetFields, account_id: id.nullable().optional() });

/** Body of PATCH /assets/<id>: any subset; `id` and `account_id` cannot change. */
export const assetPatch = z.strictObject({
  ...assetFields,
  name: assetFields.name.optional(),
  generic_asset_type_id: id.optional(),
});

const unit = z
  .string()
  .max(80, { abort: true })
  .refine(isValidUnit, { error: (iss) => `Unit '${String(iss.input)}' cannot be handled.` });

/** Body of POST /sensors. */
export const sensorCreate = z.strictObject({
  name: text(),
  unit,
  event_resolution: fixedDurationMs,
  generic_asset_id: id,
  timezone: timezone.optional(),
  attributes: jsonText.optional(),
});

/** Body of PATCH /sensors/<id>: descriptive fields only. */
export const sensorPatch = z.strictObject({
  name: text().optional(),
  unit: unit.optional(),
  event_resolution: fixedDurationMs.optional(),
  timezone: timezone.optional(),
  attributes: jsonText.optional(),
});

/** Body of PATCH /users/<id>. */
export const userPatch = z.strictObject({
  email: z.email().max(255).optional(),
  username: text().optional(),
  active: z.boolean().optional(),
  timezone: timezone.optional(),
  flexmeasures_roles: z.array(id).optional(),
  last_login_at: z.string().nullable().optional(),
  last_seen_at: z.string().nullable().optional(),
});

/** A new password: long enough to resist guessing, bounded so hashing stays cheap. */
export const newPassword = z.string().min(8).max(200);

/** Body of POST /users: a user in an account, with a password or without one (set later by a reset). */
export const userCreate = z.strictObject({
  email: z.email().max(255),
  username: text(),
  password: newPassword.optional(),
  account_id: id,
  active: z.boolean().optional(),
  timezone: timezone.optional(),
  flexmeasures_roles: z.array(id).optional(),
});

/** Body of POST /accounts (FlexMeasures 1.0). */
export const accountCreate = z.strictObject({ name: text(), consultancy_account_id: id.nullable().optional() });

/**
 * Body of PATCH /accounts/<id> (FlexMeasures 1.0): the fields Flexsite accounts have. 1.0's
 * colours, logo, attributes and plan are unknown fields here.
 */
export const accountPatch = z.strictObject({
  name: text().optional(),
  consultancy_account_id: id.nullable().optional(),
  account_roles: z.array(id).optional(),
});

/** Body of POST /setup: the first account and its administrator. */
export const firstSetup = z.strictObject({
  account_name: text(),
  email: z.email().max(255),
  username: text(),
  password: newPassword,
  timezone: timezone.optional(),
  /** The site's name: made as an asset of type site, for the devices to be added under it. */
  site_name: text(80).optional(),
});
