import { z } from 'zod';
import { bodySchema, type RouteSpec } from '../http/routes.ts';

const toSchema = (schema: z.ZodType) =>
  // `io: 'input'` describes what a client sends (transforms such as datetimes stay strings) and,
  // for answers, leaves keys beyond those listed allowed, as clients must tolerate them.
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[] } & Record<string, unknown>;

/**
 * Path and query values arrive as text, which fields like `intText` and `boolText` accept next to
 * the typed value; a client sends the typed value, so that is what its parameter shows.
 */
function typedParameter(schema: JsonSchema): JsonSchema {
  const typed = (t: unknown) => t === 'integer' || t === 'number' || t === 'boolean';
  if (schema.anyOf?.length === 2 && schema.anyOf.some((s) => s.type === 'string')) {
    const other = schema.anyOf.find((s) => s.type !== 'string')!;
    if (typed(other.type)) return other;
  }
  if (Array.isArray(schema.type) && schema.type.length === 2 && schema.type.includes('string')) {
    const other = schema.type.find((t) => t !== 'string');
    if (typed(other)) return { ...schema, type: other };
  }
  return schema;
}

const errorBody = {
  type: 'object',
  properties: { message: {}, status: { type: ['string', 'integer'] }, result: { type: 'string' } },
};

/**
 * Generates the OpenAPI 3.1 document from the route specs: the zod schemas that validate each
 * request and those of the answers, so that the description cannot drift from what the server does.
 * @param routes the endpoints.
 * @param prefix the path prefix the routes are mounted under.
 * @param origin the server's origin as the client reached it.
 * @returns the OpenAPI document.
 */
export function openApiDocument(routes: RouteSpec[], prefix: string, origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = prefix + route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', route.request?.params],
      ['query', route.request?.query],
    ] as const) {
      if (!schema) continue;
      const json = toSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, s] of Object.entries(json.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || Boolean(json.required?.includes(name)),
          schema: typedParameter(s),
        });
      }
    }
    const { response } = route;
    const status = typeof response.status === 'number' ? response.status : 200;
    const responses: Record<string, unknown> = {
      [status]: {
        description: response.description ?? 'success',
        ...(response.schema ? { content: { 'application/json': { schema: toSchema(response.schema) } } } : {}),
      },
    };
    if (!route.public) {
      responses['401'] = { description: 'missing, expired or invalid token', content: { 'application/json': { schema: errorBody } } };
      responses['403'] = { description: 'not allowed for this caller', content: { 'application/json': { schema: errorBody } } };
    }
    if (route.request) {
      responses['422'] = { description: 'invalid input, messages per field', content: { 'application/json': { schema: errorBody } } };
    }
    const json = bodySchema(route);
    const body = json
      ? { required: true, content: { 'application/json': { schema: toSchema(json) } } }
      : route.request?.multipart
        ? { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } }
        : undefined;
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      summary: route.summary,
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: body } : {}),
      responses,
      ...(route.public ? { security: [] } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flexsite API',
      version: '3.0',
      description: `Wire-compatible with FlexMeasures 0.18 (default) and 1.0 (API v3.0-32, FLEXSITE_API_COMPAT=1.0). Send the token from POST /api/requestAuthToken in the Authorization header.`,
    },
    servers: [{ url: origin }],
    components: {
      securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } },
    },
    security: [{ token: [] }],
    paths,
  };
}
