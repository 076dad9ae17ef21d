import cluster from 'node:cluster';
import { type Config, ConfigError, readTls } from '../config/config.js';
import { serve } from '../server.js';

export async function serveCommand(config: Config): Promise<void> {
  let tls: ReturnType<typeof readTls>;
  try {
    // the certificate is checked here, before anything opens: a bad file stops the start like any other bad
    // variable (with WORKERS > 1 the primary checks it once, so workers do not crash and get restarted in a loop)
    tls = readTls(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`calendar: bad configuration: ${error.message}\n`);
    // nothing is open yet, so the process ends with this code as soon as this returns
    process.exitCode = 78;
    return;
  }
  if (tls && cluster.isPrimary && tls.validTo.getTime() < Date.now()) {
    process.stderr.write(`calendar: warning: the TLS_CERT certificate expired on ${tls.validTo.toISOString()}\n`);
  }
  await serve(config, tls);
}
