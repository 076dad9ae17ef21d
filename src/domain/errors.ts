/**
 * The error catalogue: every error the API answers with, its HTTP status and its message, in one place.
 * Codes are the original's (WordPress core and The Events Calendar) so existing clients keep matching on them.
 * On the wire every error is `{ code, message, data: { status, ... } }`.
 */

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.extra } };
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  data: { status: number; [key: string]: unknown };
}

/** The message WordPress gives each parameter that fails validation. */
export const INVALID_PARAMETER = 'Invalid parameter.';

export interface ParamFailure {
  message: string;
  /** Set when WordPress' validator would have returned a WP_Error (not `false`): the failure is also in `data.details`. */
  code?: string;
  data?: Readonly<Record<string, unknown>>;
}

function invalidImage(message: string) {
  return errors.invalidParam('image', message);
}

export const errors = {
  // --- request model (WordPress core) ---
  noRoute: () => new ApiError('rest_no_route', 404, 'No route was found matching the URL and request method.'),
  invalidNamespace: () => new ApiError('rest_invalid_namespace', 404, 'The specified namespace could not be found.'),
  /** `code`: PHP's json_last_error() for the failure (4 JSON_ERROR_SYNTAX, 1 JSON_ERROR_DEPTH, 5 JSON_ERROR_UTF8). */
  invalidJson: (detail: string, code: 1 | 4 | 5 = 4) =>
    new ApiError('rest_invalid_json', 400, 'Invalid JSON body passed.', {
      json_error_code: code,
      json_error_message: detail,
    }),
  missingParams: (names: string[]) =>
    new ApiError('rest_missing_callback_param', 400, `Missing parameter(s): ${names.join(', ')}`, { params: names }),
  invalidParams: (failures: Record<string, ParamFailure>) => {
    const params: Record<string, string> = {};
    // WordPress lists in `details` only the failures its validators returned as WP_Error ({code, message, data});
    // a validator that returned `false` has none, and with none the key holds PHP's empty array: `[]`
    const details: Record<string, { code: string; message: string; data: unknown }> = {};
    for (const [name, f] of Object.entries(failures)) {
      params[name] = f.message;
      if (f.code !== undefined) details[name] = { code: f.code, message: f.message, data: f.data ?? null };
    }
    return new ApiError('rest_invalid_param', 400, `Invalid parameter(s): ${Object.keys(failures).join(', ')}`, {
      params,
      details: Object.keys(details).length > 0 ? details : [],
    });
  },
  invalidParam: (name: string, message = INVALID_PARAMETER, code?: string) => errors.invalidParams({ [name]: { message, code } }),
  forbidden: (authenticated: boolean) =>
    new ApiError(
      'rest_forbidden',
      authenticated ? 403 : 401,
      authenticated ? 'Sorry, you are not allowed to do that.' : 'Sorry, you are not allowed to do that. Please log in.',
    ),
  payloadTooLarge: (limit: number) => new ApiError('rest_payload_too_large', 413, `The request body is larger than the limit of ${limit} bytes.`),
  unsupportedMediaType: (type: string) =>
    new ApiError(
      'rest_unsupported_media_type',
      415,
      `Unsupported content type "${type}": send application/json, application/x-www-form-urlencoded or multipart/form-data.`,
    ),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError('rest_too_many_requests', 429, `Too many requests; try again in ${retryAfterSeconds} s.`, {
      retry_after: retryAfterSeconds,
    }),
  headersTooLarge: () => new ApiError('rest_request_headers_too_large', 431, 'The request line or headers are too large.'),
  requestTimeout: () => new ApiError('rest_request_timeout', 408, 'The request took too long to arrive.'),
  conflict: () => new ApiError('rest_conflict', 409, 'The write collided with another one; send it again.'),
  internal: () => new ApiError('rest_internal_error', 500, 'An internal error occurred; it has been logged.'),
  unavailable: () => new ApiError('rest_service_unavailable', 503, 'The database is not answering; try again shortly.'),
  badRequest: (message: string) => new ApiError('rest_bad_request', 400, message),
  callbackInvalid: () => new ApiError('rest_callback_invalid', 400, 'Invalid JSONP callback function.'),

  // --- conditional requests (RFC 9110 §13, RFC 6585 §3; FEATURES.md §2.3) ---
  preconditionFailed: () =>
    new ApiError(
      'precondition-failed',
      412,
      'The item has changed since the version the request names (If-Match or If-Unmodified-Since), or it does not exist: read it again, then send the write with its new ETag.',
    ),
  preconditionRequired: () =>
    new ApiError(
      'precondition-required',
      428,
      'Writes of an existing item must be conditional here: send If-Match with the ETag of the item as last read (or If-Unmodified-Since).',
    ),

  // --- authentication (ours; DECISIONS.md) ---
  incorrectPassword: () => new ApiError('incorrect_password', 401, 'The provided login or application password is incorrect.'),
  unsupportedAuthorization: () =>
    new ApiError('rest_unsupported_authorization', 401, 'Unsupported Authorization scheme: use HTTP Basic with a login and an application password.'),

  cannotEditOthers: () => new ApiError('rest_cannot_edit_others', 403, 'Sorry, you are not allowed to write posts as another user.'),
  cannotUploadImage: () => invalidImage('Sorry, you are not allowed to set an image by URL (only roles that may upload files can).'),

  // --- events (The Events Calendar; messages word for word as the original answers them, tec-6.17 recordings) ---
  eventNotFound: (id: number | string) => new ApiError('rest-event-not-found', 404, `Event with ID ${id} does not exist.`),
  invalidEventId: () => new ApiError('rest-invalid-event-id', 400, 'The specified ID is not a valid event.'),
  eventNoLongerAvailable: () => new ApiError('event-no-longer-available', 403, 'This event is no longer available'),
  eventNotAccessible: () => new ApiError('event-not-accessible', 403, 'The requested event is not accessible'),
  eventPasswordProtected: () => new ApiError('event-password-protected', 403, 'The requested event is not accessible without a password'),
  eventInTrash: () => new ApiError('event-is-in-trash', 410, 'The event is already trashed'),
  eventPageNotFound: () => new ApiError('event-archive-page-not-found', 404, 'The requested event archive page does not exist'),

  // --- recurring events (FEATURES.md §1) ---
  eventOccurrenceGone: (id: number) =>
    new ApiError('event-occurrence-gone', 410, `The occurrence with ID ${id} no longer exists: its series' rule or times changed.`),
  icalUidTaken: (uid: string) => new ApiError('event-ical-uid-taken', 409, `Another event already has the iCalendar UID "${uid}".`),
  eventNotRecurring: (id: number) => new ApiError('event-not-recurring', 400, `The event with ID ${id} is not a recurring series.`),
  eventNotOccurrence: (id: number) =>
    new ApiError('event-not-occurrence', 400, `The event with ID ${id} is not an occurrence of a recurring series.`),

  // --- sync (FEATURES.md §2.3) ---
  invalidSyncToken: (param: 'sync_token' | 'page_token', why: string) =>
    new ApiError('invalid-sync-token', 400, `The ${param} is not valid here: ${why}`, { param }),
  syncTokenExpired: (why: string) =>
    new ApiError('sync-token-expired', 410, `Sync token is no longer valid, a full sync is required (${why}): start again with sync_token=start.`, {
      reason: 'fullSyncRequired',
    }),
  notWithSyncToken: (param: string) =>
    errors.invalidParam(param, `Invalid parameter(s): ${param} (not with sync_token: a sync covers everything the caller may see).`),

  // --- imports (FEATURES.md §3.4) ---
  importNotFound: (id: number) => new ApiError('import-not-found', 404, `The import with ID ${id} was not found.`),
  notICalendar: (reason: string) => new ApiError('import-not-icalendar', 400, `The body is not iCalendar: ${reason}`),
  importMediaType: (type: string) =>
    new ApiError(
      'rest_unsupported_media_type',
      415,
      `Unsupported content type "${type}": send text/calendar (an .ics file) or application/json ({"source":"ics","url":…}).`,
    ),
  importUrlRefused: (reason: string) => new ApiError('import-url-refused', 400, `The URL is refused: ${reason}`),
  importRunning: (id: number) =>
    new ApiError(
      'import-running',
      409,
      `Import ${id} of this site is still running; wait for it, or stop its process (a new run resumes from its checkpoint).`,
      { import: id },
    ),

  // --- webhooks (FEATURES.md §4, issue 18) ---
  webhookNotFound: (id: number) => new ApiError('webhook-not-found', 404, `The webhook endpoint with ID ${id} was not found.`),
  webhookDeliveryNotFound: (id: number) =>
    new ApiError('webhook-delivery-not-found', 404, `The delivery with ID ${id} was not found for this endpoint.`),
  webhookTestNotRedelivered: (id: number) =>
    new ApiError(
      'webhook-test-not-redeliverable',
      400,
      `The delivery with ID ${id} is a test, which is not sent again: send a new one (POST …/test).`,
    ),
  webhookUrlRefused: (reason: string) => new ApiError('webhook-url-refused', 400, `The URL is refused: ${reason}`, { params: { url: reason } }),
  webhookUnreachable: (reason: string) =>
    new ApiError('webhook-endpoint-unreachable', 400, `The endpoint did not accept a webhook.test (a 2xx within 10 s): ${reason}`),

  // --- image files kept here (`/media/<sha256>.<ext>`, issue 15) ---
  mediaNotFound: () => new ApiError('media-not-found', 404, 'No image file of this service has that name.'),

  // --- venues and organizers (The Events Calendar): the original's messages word for word (REST/V1/Messages.php;
  // recorded in tec-6.17/anonymous/venues/single/non-public-18.json), as clients may show or match them ---
  linkedNotAccessible: (type: 'venue' | 'organizer') => new ApiError(`${type}-not-accessible`, 403, `The requested ${type} is not accessible`),
  linkedInTrash: (type: 'venue' | 'organizer') => new ApiError(`${type}-is-in-trash`, 410, `The ${type} is already trashed`),
  linkedPageNotFound: (type: 'venue' | 'organizer') =>
    new ApiError(`${type}-archive-page-not-found`, 404, `The requested ${type} archive page does not exist`),
  couldNotCreateLinked: (type: 'venue' | 'organizer', reason: string) =>
    new ApiError(`could-not-create-${type}`, 400, `Could not create the ${type}: ${reason}`),

  // --- terms (WordPress core) ---
  termExists: (termId: number) =>
    new ApiError('term_exists', 400, 'A term with the name provided already exists with this parent.', {
      term_id: termId,
    }),
  duplicateTermSlug: (slug: string) => new ApiError('duplicate_term_slug', 400, `The slug "${slug}" is already in use by another term.`),
  taxonomyNotHierarchical: () => new ApiError('rest_taxonomy_not_hierarchical', 400, 'Cannot set parent term, taxonomy is not hierarchical.'),
} as const;
