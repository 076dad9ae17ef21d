#!/usr/bin/env node
/**
 * `calendar <command>`: serve | migrate | users … . Reads the same environment as the service, so it works on
 * the service's database, even while the service runs.
 */
import { type Config, ConfigError, loadConfig } from '../config/config.js';
import { importCommand } from './import.command.js';
import { migrateCommand } from './migrate.command.js';
import { openapiCommand } from './openapi.command.js';
import { serveCommand } from './serve.command.js';
import { UsageError, usersCommand } from './users.command.js';
import { webhooksCommand } from './webhooks.command.js';

const USAGE = `usage: calendar <command>

commands:
  serve                                   run the HTTP service (what \`npm start\` runs)
  migrate                                 apply pending database migrations
  openapi [--out FILE]                    print (or write) the OpenAPI document of GET /doc
  users add LOGIN --role ROLE [--email E] [--app-password P | --app-password-file FILE]
                                          create a user and an application password
  users list                              list users
  users remove LOGIN                      delete a user (their posts stay, without author)
  users app-password LOGIN [--app-password P | --app-password-file FILE]
                                          add another application password
  users revoke LOGIN                      revoke every application password of a user
  users set-role LOGIN --role ROLE        give a user another role (from their next request on)
  import ics FILE|URL [--dry-run] [--status draft|publish|pending|private]
             [--update overwrite|retain|preserve] [--as LOGIN]
                                          import an iCalendar file or feed (as LOGIN, default the
                                          first administrator), then print a summary
  import tec SITE_URL [--app-password LOGIN:PASSWORD | --app-password-file FILE] [--event-password P]
             [--since YYYY-MM-DD] [--dry-run] [--prune] [--group-series] [--images link|download|skip] [--concurrency N]
             [--as LOGIN] [--author LOGIN] [--max-probes N] [--redirects FILE]
                                          move a whole site running The Events Calendar in (run it
                                          again to update; a stopped run resumes), then print the report
  import redirects SITE_URL [--out FILE]  print the redirect map (nginx) of a site imported before
  webhooks add URL [--types T,T] [--description D] [--payload thin|full] [--category ID]...
               [--venue ID] [--organizer ID] [--secret-file FILE] [--as LOGIN]
                                          add an endpoint (it must answer a webhook.test with a 2xx)
                                          and print its signing secret, once (or sign with the
                                          whsec_… secret in FILE, which its receiver already holds)
  webhooks list                           list endpoints
  webhooks remove ID                      delete an endpoint and its delivery log
  webhooks test ID                        send a webhook.test now and print the answer
  webhooks deliveries ID [--status pending|held|succeeded|failed] [--limit N]
                                          the newest deliveries to an endpoint

roles: administrator, editor, author, contributor, subscriber
exit codes: 0 done; 1 failed; 2 usage; 3 an import done with failed records (listed in its report);
            66 a file that cannot be read; 67 no such user; 78 bad configuration
environment: DATABASE_URL, SITE_TIMEZONE, … (see the README)`;

const COMMANDS = ['serve', 'migrate', 'openapi', 'users', 'import', 'webhooks'];

/** The usage of one command: its lines of USAGE (with their continuation lines), then what applies to all. */
function commandUsage(command: string): string {
  const lines = USAGE.split('\n');
  const start = lines.indexOf('commands:') + 1;
  const end = lines.indexOf('', start);
  const own: string[] = [];
  let mine = false;
  for (const line of lines.slice(start, end)) {
    if (/^ {2}\S/.test(line)) mine = line.startsWith(`  ${command} `);
    if (mine) own.push(line);
  }
  return `usage: calendar ${command} …\n\n${own.join('\n')}\n\n${lines.slice(end + 1).join('\n')}`;
}

/** `--help` or `-h` among a command's arguments (before a `--`, after which arguments are positional). */
const asksHelp = (args: string[]): boolean => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  // before the configuration is read: help needs none, and does nothing else (`serve --help` serves nothing)
  if (COMMANDS.includes(command) && asksHelp(rest)) {
    process.stdout.write(`${commandUsage(command)}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`calendar: bad configuration: ${error.message}\n`);
      return 78;
    }
    throw error;
  }
  try {
    switch (command) {
      case 'serve':
        if (rest.length > 0) throw new UsageError('serve takes no arguments (its settings are environment variables)');
        await serveCommand(config);
        return -1; // keeps running
      case 'migrate':
        if (rest.length > 0) throw new UsageError('migrate takes no arguments');
        return await migrateCommand(config);
      case 'openapi':
        return openapiCommand(config, rest);
      case 'users':
        return await usersCommand(config, rest);
      case 'import':
        return await importCommand(config, rest);
      case 'webhooks':
        return await webhooksCommand(config, rest);
      default:
        process.stderr.write(`calendar: unknown command "${command}"\n\n${USAGE}\n`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`calendar: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

// a reader that went away (`calendar openapi | head -1`) is not an error of the command: what it does still
// completes (an import, a user), and what it prints goes nowhere, without a stack trace
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`calendar: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
