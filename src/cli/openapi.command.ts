import { writeFileSync } from 'node:fs';
import { createRegistry } from '../app.js';
import type { Config } from '../config/config.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { NAMESPACE } from '../http/urls.js';

/** The OpenAPI document as `GET /doc` serves it for this configuration (PUBLIC_URL), to stdout or a file. */
export function openApiDocument(publicUrl: string): string {
  return `${JSON.stringify(buildOpenApiDocument(createRegistry(), { serverUrl: `${publicUrl}/${NAMESPACE}/` }), null, 2)}\n`;
}

export function openapiCommand(config: Config, argv: string[]): number {
  const text = openApiDocument(config.publicUrl);
  const out = argv[0] === '--out' ? argv[1] : undefined;
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  return 0;
}
