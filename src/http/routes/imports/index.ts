/**
 * `/imports` (FEATURES.md §3.4, issue 13): start an import of an .ics file (a `text/calendar` body) or URL
 * (`{"source":"ics","url":…}`), answered 202 with the job; read a job's state, progress, counts and errors;
 * list the jobs. Editors and administrators only.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../../../domain/errors.js';
import { canImport, IMPORT_STATUSES, UPDATE_AUTHORITIES } from '../../../domain/imports/import.service.js';
import { isDay } from '../../../domain/imports/tec/tec.importer.js';
import { serializeImport } from '../../../serializers/import.serializer.js';
import { pageArg, perPageArg, totalPages } from '../../collection.js';
import { type ArgContext, arg, invalid } from '../../params.js';
import { type RouteSpec, route } from '../../route.js';
import { ImportJobSchema, ImportListSchema } from './imports.schemas.js';

export const IMPORTS_PATH = '/imports';

/** The options of a site import (`source=tec`, FEATURES.md §6.3); ignored for `ics`. */
const tecArgs = {
  since: arg(Type.String({ description: '`tec`: events from this day on (YYYY-MM-DD).' }), {
    // (a day that exists: 2020-02-31 does not, where Date.parse rolls it over)
    check: (v: string) => (isDay(v) ? undefined : invalid()),
  }),
  prune: arg(Type.Boolean({ description: '`tec`: after a complete pass, trash what has gone from the site.' }), { default: false }),
  group_series: arg(
    Type.Boolean({ description: '`tec`: group the occurrences of a Pro recurring event into one series with an explicit list of dates.' }),
    { default: false, as: 'groupSeries' },
  ),
  images: arg(
    Type.String({
      enum: ['link', 'download', 'skip'],
      description:
        '`tec`: featured images `link`ed by their URL on the site; or `download`ed once each (the full size and the sizes the site lists; JPEG, PNG, GIF, WebP or AVIF, at most 20 MB) and served by this service at `/media/<sha256>.<ext>`, a later run asking the site only whether they changed; or `skip`ped.',
    }),
    { default: 'link' },
  ),
  concurrency: arg(Type.Integer({ minimum: 1, maximum: 8, description: '`tec`: requests in flight at most.' }), { default: 2 }),
  app_password: arg(
    Type.String({
      maxLength: 200,
      description: '`tec`: `LOGIN:PASSWORD` of an application password on the site (drafts, private events…); forgotten when the job ends.',
    }),
    { as: 'appPassword', check: (v: string) => (v.includes(':') ? undefined : invalid('LOGIN:PASSWORD')) },
  ),
  event_password: arg(Type.String({ maxLength: 200, description: '`tec`: the post password of password-protected events.' }), {
    as: 'eventPassword',
  }),
  author: arg(Type.Integer({ minimum: 1, description: '`tec`: the local user who becomes the author of what is imported (default: who asks).' }), {
    check: async (v: number, ctx: ArgContext) => ((await ctx.services.users.exists(v)) ? undefined : invalid()),
  }),
  max_probes: arg(
    Type.Integer({
      minimum: 0,
      maximum: 100000,
      description: '`tec`: how many unlisted ids may be read (between listed events, and just above the highest).',
    }),
    {
      default: 5000,
      as: 'maxProbes',
    },
  ),
};

export function importRoutes(): RouteSpec[] {
  const idArg = arg(Type.Integer({ description: 'The import job id.' }), { required: true });
  return [
    route({
      methods: ['GET'],
      path: IMPORTS_PATH,
      summary: 'List import jobs, newest first.',
      errors: [403],
      permission: (actor) => canImport(actor),
      allowed: (actor) => canImport(actor),
      args: { page: pageArg, per_page: perPageArg },
      responses: { 200: ImportListSchema },
      async handler(ctx) {
        const { items, total } = await ctx.services.imports.list(ctx.actor, ctx.args.page, ctx.args.perPage);
        const pages = totalPages(total, ctx.args.perPage);
        return {
          body: {
            imports: await Promise.all(items.map(async (j) => serializeImport(j, ctx.urls, await ctx.services.imports.report(j)))),
            total,
            total_pages: pages,
          },
          headers: { 'X-TEC-Total': total, 'X-TEC-TotalPages': pages },
        };
      },
    }),
    route({
      methods: ['POST'],
      path: IMPORTS_PATH,
      summary:
        'Import events from an .ics file (body `text/calendar`, options in the query string) or from a URL (JSON `{"source":"ics","url":…}`); answered 202 with the job.',
      errors: [403],
      permission: (actor) => canImport(actor),
      allowed: (actor) => canImport(actor),
      rawBody: { type: 'text/calendar', description: 'An iCalendar file (RFC 5545), at most 10 MB.' },
      args: {
        source: arg(
          Type.String({
            enum: ['ics', 'tec'],
            description: 'What to import: `ics` (iCalendar), or `tec`: a whole site running The Events Calendar.',
          }),
          { default: 'ics' },
        ),
        url: arg(
          Type.String({
            description:
              'An http(s) URL of an .ics feed, or its webcal:// subscription link (read as http://), instead of a text/calendar body; for `tec`, the site URL or its events API root.',
            maxLength: 2000,
          }),
        ),
        ...tecArgs,
        dry_run: arg(Type.Boolean({ description: 'Count what would be created, updated and skipped, and write nothing.' }), {
          default: false,
          as: 'dryRun',
        }),
        default_status: arg(Type.String({ enum: [...IMPORT_STATUSES], description: 'The status of events the import creates.' }), {
          default: 'publish',
          as: 'defaultStatus',
        }),
        update_authority: arg(
          Type.String({
            enum: [...UPDATE_AUTHORITIES],
            description:
              'Events imported before: `overwrite` them, `retain` them as they are, or `preserve_local_changes` (fields edited here keep their value).',
          }),
          { default: 'overwrite', as: 'updateAuthority', check: (v: string) => (v === '' ? invalid() : undefined) },
        ),
      },
      responses: { 202: ImportJobSchema },
      async handler(ctx) {
        const body = ctx.request.body;
        if (ctx.args.source === 'tec') {
          if (!ctx.args.url) throw errors.missingParams(['url']);
          const a = ctx.args;
          const job = await ctx.services.imports.create(ctx.actor, {
            source: 'tec',
            url: a.url ?? undefined,
            dryRun: a.dryRun,
            defaultStatus: 'publish',
            updateAuthority: 'overwrite',
            tec: {
              since: a.since ?? undefined,
              prune: a.prune,
              group_series: a.groupSeries,
              images: a.images,
              concurrency: a.concurrency,
              app_password: a.appPassword ?? undefined,
              event_password: a.eventPassword ?? undefined,
              author: a.author ?? undefined,
              max_probes: a.maxProbes,
            },
          });
          return { status: 202, body: serializeImport(job, ctx.urls), headers: { Location: ctx.urls.rest(`/imports/${job.id}`) } };
        }
        const text = typeof body === 'string' ? body : undefined;
        if (text === undefined && !ctx.args.url) throw errors.missingParams(['url']);
        if (text !== undefined && ctx.args.url) throw errors.badRequest('Send either a text/calendar body or a url, not both.');
        const job = await ctx.services.imports.create(ctx.actor, {
          source: 'ics',
          text,
          url: text === undefined ? (ctx.args.url ?? undefined) : undefined,
          dryRun: ctx.args.dryRun,
          defaultStatus: ctx.args.defaultStatus,
          updateAuthority: ctx.args.updateAuthority as (typeof UPDATE_AUTHORITIES)[number],
        });
        return { status: 202, body: serializeImport(job, ctx.urls), headers: { Location: ctx.urls.rest(`/imports/${job.id}`) } };
      },
    }),
    route({
      methods: ['GET'],
      path: `${IMPORTS_PATH}/:id`,
      summary: "Read an import job: its state, progress, counts and the items' errors.",
      errors: [403, 404],
      permission: (actor) => canImport(actor),
      allowed: (actor) => canImport(actor),
      args: { id: idArg },
      responses: { 200: ImportJobSchema },
      async handler(ctx) {
        const job = await ctx.services.imports.get(ctx.actor, ctx.args.id);
        return { body: serializeImport(job, ctx.urls, await ctx.services.imports.report(job)) };
      },
    }),
  ];
}
