/** Runs the `calendar` bin as a user would: plain node on the compiled file, with an environment. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DatabaseConfig } from '../../src/config/config.js';

export const BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The DATABASE_URL that reaches a test database from another process. */
export function databaseUrl(config: DatabaseConfig): string {
  if (config.dialect === 'sqlite') return `sqlite:${config.path}`;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('options', `-c search_path=${config.schema}`);
  return url.toString();
}
