/**
 * `multipart/form-data` bodies, read as PHP reads them into `$_POST` (what WordPress' REST server takes as the
 * form body, CONTRACT.md §0): each part without a file name is a field whose value is its raw bytes, whatever
 * charset or transfer encoding the part names; parts with a file name go to `$_FILES`, which no route of the
 * original reads, so they are dropped. `curl -F name=value` and a browser's `FormData` send such bodies.
 *
 * The fields come back as the `application/x-www-form-urlencoded` body that says the same thing (every byte
 * percent-escaped), so that one reader gives both kinds of form their meaning: `venue[venue]=…` nesting,
 * repeated names, limits, and the strict UTF-8 check that names the parameter.
 *
 * The MIME parsing is @fastify/busboy's (the Fastify team's maintained fork of busboy, no dependencies).
 */
import { Busboy, type BusboyHeaders } from '@fastify/busboy';

/** What is wrong with a body that is not multipart/form-data after all (a missing boundary, a cut-off part). */
export class MultipartError extends Error {}

/** Every byte as `%XX`: the escaped form of a name or value, whatever bytes it holds. */
function escaped(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) out += byte < 16 ? `%0${byte.toString(16)}` : `%${byte.toString(16)}`;
  return out;
}

/**
 * A field name as its bytes: busboy hands names as it read them, one character a byte (a name written as
 * `name*=utf-8''…` comes decoded, with characters past U+00FF: those are its UTF-8).
 */
function nameBytes(name: string): Buffer {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0xff) return Buffer.from(name, 'utf8');
  return Buffer.from(name, 'latin1');
}

/**
 * The form-encoded equivalent of a whole multipart body (already read, within the body limit). Rejects with a
 * MultipartError when the body cannot be read as multipart/form-data.
 */
export function multipartAsForm(body: Buffer, headers: BusboyHeaders, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let boy: ReturnType<typeof Busboy>;
    try {
      // every part as a stream of its raw bytes (a "file" to busboy), so that no charset decodes a field's value
      boy = Busboy({
        headers,
        isPartAFile: () => true,
        limits: { fieldNameSize: limit, fieldSize: limit, fileSize: limit, headerPairs: 2000 },
      });
    } catch (error) {
      reject(new MultipartError((error as Error).message));
      return;
    }
    const fields: Promise<string | undefined>[] = [];
    boy.on('file', (name, stream, fileName) => {
      const chunks: Buffer[] = [];
      fields.push(
        new Promise((done, fail) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', fail);
          stream.on('end', () => done(fileName === undefined ? `${escaped(nameBytes(name))}=${escaped(Buffer.concat(chunks))}` : undefined));
        }),
      );
    });
    boy.on('error', (error) => reject(new MultipartError(error instanceof Error ? error.message : String(error))));
    boy.on('finish', () => {
      Promise.all(fields).then(
        (pairs) => resolve(Buffer.from(pairs.filter((p) => p !== undefined).join('&'), 'latin1')),
        (error: unknown) => reject(new MultipartError(error instanceof Error ? error.message : String(error))),
      );
    });
    boy.end(body);
  });
}
