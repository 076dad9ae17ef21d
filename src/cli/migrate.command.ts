import type { Config } from '../config/config.js';
import { openStorage } from '../storage/storage.js';

export async function migrateCommand(config: Config): Promise<number> {
  const storage = await openStorage(config.database, { poolSize: 1 });
  try {
    const applied = await storage.migrate();
    process.stdout.write(applied.length === 0 ? 'schema is up to date\n' : `applied: ${applied.join(', ')}\n`);
    return 0;
  } finally {
    await storage.close();
  }
}
