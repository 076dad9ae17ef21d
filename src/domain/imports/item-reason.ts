/**
 * Why an imported item failed, as the job's report shows it: an API error's code, and the parameters it names
 * with their messages (a bare "Invalid parameter." would not say which field of the item was wrong).
 */
import { ApiError } from '../errors.js';

export function reasonOf(error: unknown): string {
  if (error instanceof ApiError) {
    const params = error.extra.params;
    let detail = '';
    if (Array.isArray(params)) detail = params.join(', ');
    else if (params !== null && typeof params === 'object') {
      detail = Object.entries(params as Record<string, unknown>)
        .map(([name, message]) => (String(message).includes(name) ? String(message) : `${name}: ${String(message)}`))
        .join(' ');
    }
    return `${error.code}: ${detail || error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
