/**
 * One error body for everything: API errors keep their code and status; Fastify's own errors (body too large,
 * bad content type, malformed URL) become the matching API error; storage that is busy or down becomes a 503;
 * anything else is a 500 whose details go to the log with the request id, never to the client.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../../domain/errors.js';
import { MAX_DOCUMENT_BYTES } from '../../domain/imports/fetch.js';
import { StorageError } from '../../storage/dialects/dialect.js';
import type { Storage } from '../../storage/storage.js';

/** The media type of an iCalendar body: app.ts parses it with a limit of its own (MAX_DOCUMENT_BYTES). */
export const CALENDAR_TYPE = /^text\/calendar\s*(;.*)?$/i;

/**
 * `takesCalendar`: the request's route also takes a text/calendar body (the imports route), which its 415 names
 * (the message of the others sends a client to JSON or a form, which do not carry an .ics file).
 */
export function toApiError(error: unknown, storage: Storage, bodyLimit: number, contentType?: string, takesCalendar = false): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const translated = storage.translateError(error);
  if (translated instanceof StorageError) {
    if (translated.kind === 'busy' || translated.kind === 'unavailable') return errors.unavailable();
    if (translated.kind === 'invalid_data') return errors.badRequest('A value in the request cannot be stored.');
    if (translated.kind === 'unique' || translated.kind === 'foreign_key') return errors.conflict();
    return undefined;
  }
  const fe = error as Partial<FastifyError>;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // (an iCalendar file for an import has a limit of its own: app.ts' text/calendar parser)
      return errors.payloadTooLarge(contentType !== undefined && CALENDAR_TYPE.test(contentType) ? MAX_DOCUMENT_BYTES : bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        const type = printable(contentType ?? '');
        return takesCalendar ? errors.importMediaType(type) : errors.unsupportedMediaType(type);
      }
      return errors.badRequest('The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson('The body is empty.');
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return errors.unsupportedMediaType('');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return errors.noRoute();
    default:
      break;
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('rest_bad_request', fe.statusCode, fe.message ?? 'Bad request.');
  }
  return undefined;
}

/** A header value fit to quote in a message: printable ASCII, at most 100 characters. */
function printable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}

/** `calendarRoute`: the path of the route that also takes a text/calendar body (see toApiError). */
export function registerErrorHandling(app: FastifyInstance, storage: Storage, bodyLimit: number, calendarRoute?: string): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // the route comes first (CONTRACT.md: route match, then the body): no route, no body errors
    const bodyError = String((error as Partial<FastifyError>)?.code ?? '').startsWith('FST_ERR_CTP_');
    const takesCalendar = calendarRoute !== undefined && (request.routeOptions.url ?? '').endsWith(calendarRoute);
    const apiError =
      request.is404 && bodyError ? errors.noRoute() : toApiError(error, storage, bodyLimit, request.headers['content-type'], takesCalendar);
    if (apiError) {
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(apiError.status).type('application/json; charset=UTF-8').send(apiError.toBody());
    }
    request.log.error({ err: error, reqId: request.id }, 'unhandled error');
    const internal = errors.internal();
    return reply
      .code(500)
      .type('application/json; charset=UTF-8')
      .send({ ...internal.toBody(), data: { status: 500, request_id: request.id } });
  });

  app.setNotFoundHandler((_request, reply) => {
    const e = errors.noRoute();
    return reply.code(404).type('application/json; charset=UTF-8').send(e.toBody());
  });
}
