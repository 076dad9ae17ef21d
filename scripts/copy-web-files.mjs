#!/usr/bin/env node
// tsc compiles only TypeScript: the pages' templates and static assets are copied beside the compiled code.
import { cpSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
for (const dir of ['views', 'assets']) {
  rmSync(`${root}dist/src/web/${dir}`, { recursive: true, force: true });
  cpSync(`${root}src/web/${dir}`, `${root}dist/src/web/${dir}`, { recursive: true });
}
