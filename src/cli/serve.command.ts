import type { Config } from '../config/config.js';
import { serve } from '../server.js';

export async function serveCommand(config: Config): Promise<void> {
  await serve(config);
}
