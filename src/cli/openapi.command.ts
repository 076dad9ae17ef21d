import { writeFileSync } from 'node:fs';
import { createRegistry } from '../app.js';
import type { Config } from '../config/config.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { NAMESPACE } from '../http/urls.js';
import { parseCommand, UsageError } from './users.command.js';

/** The OpenAPI document as `GET /doc` serves it for this configuration (PUBLIC_URL), to stdout or a file. */
export function openApiDocument(publicUrl: string): string {
  return `${JSON.stringify(buildOpenApiDocument(createRegistry(), { serverUrl: `${publicUrl}/${NAMESPACE}/` }), null, 2)}\n`;
}

export function openapiCommand(config: Config, argv: string[]): number {
  const { values, positionals } = parseCommand(argv, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('openapi takes no arguments but --out FILE');
  const text = openApiDocument(config.publicUrl);
  const out = values.out === '-' ? undefined : values.out;
  if (out !== undefined) writeFileSync(out, text);
  else process.stdout.write(text);
  return 0;
}
