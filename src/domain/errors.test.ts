import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ApiError, errors } from './errors.js';

/** Every error body the TEC 6.17 site answered (test/fixtures/tec-6.17), by its code. */
function recordedErrors(): Map<string, { message: string; status: number; file: string }> {
  const root = fileURLToPath(new URL('../../../test/fixtures/tec-6.17/', import.meta.url));
  const found = new Map<string, { message: string; status: number; file: string }>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json') && name !== 'index.json') {
        const { response } = JSON.parse(readFileSync(path, 'utf8'));
        if (!response || response.status < 400) continue;
        const body = JSON.parse(response.body);
        if (typeof body?.code === 'string') found.set(body.code, { message: body.message, status: body.data?.status, file: path.slice(root.length) });
      }
    }
  };
  walk(join(root, 'anonymous'));
  walk(join(root, 'admin'));
  return found;
}

describe('error catalogue', () => {
  it("answers The Events Calendar's errors with the original's messages, word for word, for every code the recordings hold", () => {
    const ours: Record<string, ApiError> = {
      'rest-event-not-found': errors.eventNotFound(999999),
      'rest-invalid-event-id': errors.invalidEventId(),
      'event-no-longer-available': errors.eventNoLongerAvailable(),
      'event-not-accessible': errors.eventNotAccessible(),
      'event-password-protected': errors.eventPasswordProtected(),
      'event-archive-page-not-found': errors.eventPageNotFound(),
      'venue-not-accessible': errors.linkedNotAccessible('venue'),
      'organizer-not-accessible': errors.linkedNotAccessible('organizer'),
    };
    const recorded = recordedErrors();
    const tecCodes = [...recorded.keys()].filter((code) => !code.startsWith('rest_'));
    assert.deepEqual(tecCodes.sort(), Object.keys(ours).sort(), 'every TEC code recorded is checked here');
    for (const [code, error] of Object.entries(ours)) {
      const r = recorded.get(code);
      assert.ok(r, code);
      assert.deepEqual([error.code, error.message, error.status], [code, r.message, r.status], r.file);
    }
  });
});
