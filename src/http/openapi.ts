/**
 * The OpenAPI 3.0 document of `GET /doc`, generated from the same route declarations that validate requests:
 * every route and method, every argument (as query parameters for GET and DELETE, as a JSON or form body for
 * writes), every response status with its schema. Laid out as the original's document (`openapi`, `info`,
 * `components`, `servers`, `paths`, paths in the original's order), but complete and true.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Arg } from './params.js';
import type { HttpMethod, RouteRegistry, RouteSpec } from './route.js';
import { CategorySchema, TagSchema } from './routes/categories-tags/categories-tags.schemas.js';
import { EventSchema } from './routes/events/events.schemas.js';
import { OrganizerSchema, VenueSchema } from './routes/venues-organizers/venues-organizers.schemas.js';
import { WebhookPayloadSchema } from './routes/webhooks/webhooks.schemas.js';
import { publicSchema } from './schema-keywords.js';
import { ErrorSchema } from './schemas/common.schemas.js';
import { CostDetailsSchema, DateDetailsSchema, EmbeddedTermSchema, ImageSchema, ImageSizeSchema } from './schemas/components.schemas.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is built as loose JSON and checked as a whole (openapi.test.ts validates it)
type Json = Record<string, any>;

/** Named schemas, by the `title` they carry; any schema with one of these titles becomes a `$ref`. */
const COMPONENTS: Record<string, TSchema> = {
  Event: EventSchema,
  Venue: VenueSchema,
  Organizer: OrganizerSchema,
  Term: EmbeddedTermSchema,
  Category: CategorySchema,
  Tag: TagSchema,
  Image: ImageSchema,
  ImageSize: ImageSizeSchema,
  DateDetails: DateDetailsSchema,
  CostDetails: CostDetailsSchema,
  Error: ErrorSchema,
  WebhookPayload: WebhookPayloadSchema,
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the work goes on in the background.',
  400: "Invalid or missing parameters (`rest_invalid_param`, `rest_missing_callback_param`), malformed JSON (`rest_invalid_json`), or an id of the wrong kind; on lists, a sync or page token that is forged, another route's or another caller's (`invalid-sync-token`), or a parameter that does not go with one (`rest_invalid_param` naming it).",
  401: 'Credentials are needed for this, or those sent are wrong (`rest_forbidden`, `incorrect_password`).',
  403: 'The caller may not do this, or may not read this item (`rest_forbidden`, `*-not-accessible`).',
  404: 'No such route, item, or page (`rest_no_route`, `rest-event-not-found`, `*-archive-page-not-found`).',
  304: 'Not Modified: the copy the request names is current — its tag is in If-None-Match, or (without If-None-Match) it was not modified after If-Modified-Since. No body; the same ETag.',
  410: 'The item is already in the trash (`*-is-in-trash`), or is an occurrence its series no longer has (`event-occurrence-gone`).',
  412: 'A condition sent does not hold (`precondition-failed`): the item changed since the ETag in If-Match (or since If-Unmodified-Since), or it does not exist. Nothing was written.',
  413: 'The body is larger than BODY_LIMIT (`rest_payload_too_large`).',
  415: 'The body is neither JSON nor a form, form-encoded or multipart (`rest_unsupported_media_type`).',
  428: 'REQUIRE_IF_MATCH is on and the write of an existing item carries neither If-Match nor If-Unmodified-Since (`precondition-required`).',
};

/** The request headers of a conditional write (RFC 9110 §13.1.1, §13.1.4), as components. */
const CONDITION_PARAMETERS: Json = {
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Write only if the item is unchanged: the ETag of its last read (`GET` of the item, as this caller), or `*` for "any, as long as it exists". Compared strongly: a weak tag (`W/"…"`) never matches. A mismatch answers 412 and writes nothing.',
    schema: { type: 'string' },
  },
  IfUnmodifiedSince: {
    name: 'If-Unmodified-Since',
    in: 'header',
    required: false,
    description:
      'Without If-Match: write only if the item (or what it embeds) was not modified after this HTTP date (its Last-Modified); otherwise 412. To the second: If-Match is the safer condition.',
    schema: { type: 'string' },
  },
  IfNoneMatchWrite: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'Write only if the item is not in one of these states: `*` (it exists: 412) or its ETag (weak comparison); otherwise 412.',
    schema: { type: 'string' },
  },
};

/** The request headers of a conditional read (RFC 9110 §13.1.2, §13.1.3), as components. */
const READ_CONDITION_PARAMETERS: Json = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      "The ETag(s) of the copy held (weak comparison, `*` for any): when the answer would have that tag, 304 with no body. The tag is of the exact bytes this caller gets (it varies with the caller's rights and with what the answer embeds).",
    schema: { type: 'string' },
  },
  IfModifiedSince: {
    name: 'If-Modified-Since',
    in: 'header',
    required: false,
    description:
      'Without If-None-Match: 304 when the answer was not modified after this HTTP date (its Last-Modified). To the second: If-None-Match is the exact condition.',
    schema: { type: 'string' },
  },
};

/** A sync's tombstone, and `include_removed`'s (FEATURES.md §2.3). */
const TOMBSTONE: Json = {
  type: 'object',
  description:
    "What was deleted (`deleted`) or left the caller's view (`not_visible`: unpublished, made private, hidden from listings…) since the token or the instant.",
  properties: {
    id: { type: 'integer' },
    removed: {
      type: 'object',
      properties: { reason: { type: 'string', enum: ['deleted', 'not_visible'] } },
      required: ['reason'],
      additionalProperties: false,
    },
    modified_utc: { type: 'string', description: 'When (UTC, `YYYY-MM-DD HH:MM:SS`).' },
  },
  required: ['id', 'removed', 'modified_utc'],
  additionalProperties: false,
};

/**
 * A list route's 200 (one that takes `sync_token`): the list as the original answers it, with `removed` when
 * `include_removed` asks for it; or, in sync mode, a page of a sync — the objects (each with its `etag`) and
 * tombstones, then `next_page_token` or, on the last page, `next_sync_token` (also in `X-Sync-Token`).
 */
function listOrSyncPage(listSchema: TSchema): Json {
  const list = toOpenApiSchema(listSchema, true, true) as Json;
  // the key of the items (`events`, `categories`…): the list's one array of objects
  const [key, items] = Object.entries(((listSchema as Json).properties ?? {}) as Record<string, Json>).find(([, v]) => v.type === 'array') ?? [];
  const item = items?.items as TSchema | undefined;
  if (!key || !item) return list;
  list.properties = {
    ...list.properties,
    removed: { type: 'array', items: { $ref: '#/components/schemas/Tombstone' }, description: 'With `include_removed=true`.' },
  };
  const object = toOpenApiSchema(item, true, true) as Json;
  object.properties = {
    ...object.properties,
    etag: { type: 'string', description: 'The ETag a GET of the object answers this caller (for If-Match without reading it first).' },
  };
  delete object.title;
  const page: Json = {
    type: 'object',
    description: 'A page of a sync (`sync_token`, `page_token`).',
    properties: {
      [key]: { type: 'array', items: { oneOf: [object, { $ref: '#/components/schemas/Tombstone' }] } },
      next_page_token: { type: 'string', description: 'More pages follow: pass it as `page_token`.' },
      next_sync_token: { type: 'string', description: 'On the last page: pass it as `sync_token` later for what changed since.' },
    },
    required: [key],
    additionalProperties: false,
  };
  return { oneOf: [list, page] };
}

/** What a write answers beside its body: the ETag the item's next read sends this caller (a component). */
const ETAG_HEADER: Json = {
  description: 'The ETag a GET of the item answers this caller now (absent when that GET would not answer 200, e.g. after a move to the trash).',
  schema: { type: 'string' },
};

/**
 * JSON Schema as TypeBox writes it → OpenAPI 3.0's dialect, with named schemas replaced by references.
 * `closed`: objects with declared properties allow no others (response schemas: they list every key sent).
 */
export function toOpenApiSchema(schema: unknown, root = true, closed = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toOpenApiSchema(s, false, closed));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Json;
  if (!root && typeof s.title === 'string' && s.title in COMPONENTS) return { $ref: `#/components/schemas/${s.title}` };
  const out: Json = {};
  if (closed && s.type === 'object' && s.properties && Object.keys(s.properties).length > 0 && s.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  for (const [key, value] of Object.entries(s)) {
    if (key === '$id') continue;
    if (key === 'const') {
      out.enum = [value];
      continue;
    }
    if (key === 'patternProperties') {
      out.additionalProperties = toOpenApiSchema(Object.values(value as Json)[0], false, closed);
      continue;
    }
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toOpenApiSchema(v, false, closed)]));
      continue;
    }
    out[key] = typeof value === 'object' ? toOpenApiSchema(value, false, closed) : value;
  }
  return out;
}

function argSchema(a: Arg): Json {
  const s = toOpenApiSchema(publicSchema(a.schema)) as Json;
  if (!s.description) s.description = 'No description provided';
  return s;
}

function openApiPath(path: string): string {
  return (path === '' ? '/' : path).replace(/:(\w+)/g, '{$1}');
}

const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

function resourceTag(path: string): string {
  const segment = path.split('/')[1] ?? '';
  return segment === '' ? 'Namespace' : segment.charAt(0).toUpperCase() + segment.slice(1);
}

function operationId(method: HttpMethod, spec: RouteSpec): string {
  const words = spec.path
    .split('/')
    .filter((p) => p !== '')
    .filter((p) => p !== 'by-slug')
    .map((p) => (p.startsWith(':') ? `By${p.charAt(1).toUpperCase()}${p.slice(2)}` : p.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())))
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1));
  return `${method.toLowerCase()}${words.join('') || 'Namespace'}`;
}

function jsonResponse(description: string, schema: unknown): Json {
  return { description, content: { 'application/json': { schema } } };
}

function operation(method: HttpMethod, spec: RouteSpec): Json {
  const params = pathParams(spec.path);
  const parameters: Json[] = params.map((name) => ({
    name,
    in: 'path',
    required: true,
    description: spec.args[name]?.schema.description ?? 'No description provided',
    schema: { type: name === 'id' ? 'integer' : 'string' },
  }));
  const bodyArgs = [...Object.entries(spec.args).filter(([name]) => !params.includes(name)), ...Object.entries(spec.bodyOnly ?? {})];
  const op: Json = { operationId: operationId(method, spec), summary: spec.summary, tags: [resourceTag(spec.path)], parameters };
  if (method === 'GET' || method === 'DELETE') {
    for (const [name, a] of bodyArgs) {
      const schema = argSchema(a);
      const description = schema.description;
      delete schema.description;
      const p: Json = { name, in: 'query', required: a.required === true, description, schema };
      if (schema.type === 'array') Object.assign(p, { style: 'form', explode: false });
      parameters.push(p);
    }
  } else if (bodyArgs.length > 0) {
    const required = bodyArgs.filter(([, a]) => a.required).map(([name]) => name);
    const schema: Json = {
      type: 'object',
      properties: Object.fromEntries(bodyArgs.map(([name, a]) => [name, argSchema(a)])),
    };
    if (required.length > 0) schema.required = required;
    op.requestBody = {
      required: required.length > 0,
      content: {
        'application/json': { schema },
        'application/x-www-form-urlencoded': { schema },
        'multipart/form-data': { schema },
        ...(spec.rawBody ? { [spec.rawBody.type]: { schema: { type: 'string', description: spec.rawBody.description } } } : {}),
      },
    };
  }
  const conditional = spec.item !== undefined && method !== 'GET';
  if (conditional) parameters.push(...Object.keys(CONDITION_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` })));
  // every read is a conditional one (issue 16: ETags on every GET and HEAD)
  const read = method === 'GET';
  if (read) parameters.push(...Object.keys(READ_CONDITION_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` })));
  const syncs = read && 'sync_token' in spec.args;
  const responses: Json = {};
  for (const [status, schema] of Object.entries(spec.responses ?? {})) {
    const body = syncs && status === '200' ? listOrSyncPage(schema) : toOpenApiSchema(schema, false, true);
    responses[status] = jsonResponse(STATUS_TEXT[Number(status)] ?? 'OK', body);
    if (conditional) responses[status].headers = { ETag: { $ref: '#/components/headers/ETag' } };
    if (read && status === '200') {
      responses[status].headers = {
        ETag: { $ref: '#/components/headers/ReadETag' },
        ...(spec.lastModified ? { 'Last-Modified': { $ref: '#/components/headers/LastModified' } } : {}),
        ...(syncs ? { 'X-Sync-Token': { $ref: '#/components/headers/SyncToken' } } : {}),
      };
    }
  }
  if (Object.keys(responses).length === 0) responses['200'] = jsonResponse('OK', { type: 'object', additionalProperties: true });
  if (read) responses['304'] = { description: STATUS_TEXT[304], headers: { ETag: { $ref: '#/components/headers/ReadETag' } } };
  const error = { $ref: '#/components/schemas/Error' };
  const errorStatuses = new Set<number>([400, 401, ...(spec.errors ?? []), ...(conditional ? [412, 428] : []), ...(syncs ? [410] : [])]);
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    errorStatuses.add(413);
    errorStatuses.add(415);
  }
  for (const status of [...errorStatuses].sort()) {
    const text =
      syncs && status === 410
        ? "The sync token is older than the change log keeps (SYNC_RETENTION_DAYS) or from before a change of the caller's role (`sync-token-expired`): start again with `sync_token=start`."
        : STATUS_TEXT[status];
    responses[String(status)] = jsonResponse(text, error);
  }
  op.responses = responses;
  if (spec.callbacks) op.callbacks = spec.callbacks;
  op.security = [{}, { applicationPassword: [] }];
  return op;
}

export interface DocumentOptions {
  /** `{PUBLIC_URL}/calendar/events/v1/`, with the trailing slash the original has. */
  serverUrl: string;
}

export function buildOpenApiDocument(registry: RouteRegistry, options: DocumentOptions): Json {
  const schemas: Json = {};
  for (const [name, schema] of Object.entries(COMPONENTS)) schemas[name] = toOpenApiSchema(schema, true, true);
  schemas.Tombstone = TOMBSTONE;

  const paths: Json = {};
  let index: Json | undefined;
  for (const [path, specs] of registry.byPath()) {
    const item: Json = {};
    for (const spec of specs) for (const method of spec.methods) item[method.toLowerCase()] = operation(method, spec);
    // the original's document starts with /doc; the namespace index goes last
    if (path === '') index = item;
    else paths[openApiPath(path)] = item;
  }
  if (index) paths['/'] = index;

  // identical request bodies (POST/PUT/PATCH of one route, JSON and form alike) are written once
  const requestBodies: Json = {};
  const named = new Map<string, string>();
  for (const item of Object.values(paths) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      if (!op.requestBody) continue;
      const key = JSON.stringify(op.requestBody);
      let name = named.get(key);
      if (!name) {
        name = `${op.operationId.charAt(0).toUpperCase()}${op.operationId.slice(1)}Body`;
        named.set(key, name);
        requestBodies[name] = op.requestBody;
      }
      op.requestBody = { $ref: `#/components/requestBodies/${name}` };
    }
  }

  return {
    openapi: '3.0.3',
    info: {
      version: '1.0.0',
      title: 'Events Calendar REST API',
      description:
        'Events, venues, organizers, event categories and tags, wire-compatible with The Events Calendar legacy REST API. Authenticate with HTTP Basic: a login and an application password.',
    },
    components: {
      schemas,
      requestBodies,
      parameters: { ...CONDITION_PARAMETERS, ...READ_CONDITION_PARAMETERS },
      headers: {
        ETag: ETAG_HEADER,
        ReadETag: { description: 'A strong validator of the exact bytes of this answer, as this caller gets them.', schema: { type: 'string' } },
        LastModified: {
          description: 'The latest write of the item or of what it shows (a venue, organizers, terms; one that left it too).',
          schema: { type: 'string' },
        },
        SyncToken: { description: 'On the last page of a sync: its `next_sync_token`.', schema: { type: 'string' } },
      },
      securitySchemes: { applicationPassword: { type: 'http', scheme: 'basic', description: 'A login and an application password.' } },
    },
    servers: [{ url: options.serverUrl }],
    paths,
  };
}
