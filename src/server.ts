/**
 * The process entry: load the configuration, open and migrate the database, create the first administrator
 * if asked, build the app and listen. The only file that listens. SIGTERM/SIGINT close it gracefully: the
 * listener stops accepting, in-flight requests finish, then the database closes.
 */
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { openStorage } from './storage/storage.js';

export async function serve(config: Config): Promise<void> {
  const storage = await openStorage(config.database);
  await storage.migrate();
  const app = await buildApp(config, storage);
  if (await app.services.users.ensureAdmin(config.adminLogin, config.adminPassword)) {
    app.log.info({ login: config.adminLogin }, 'created the first administrator');
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await app.close();
      await storage.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}
