// `paasmon db status|stop|url` and `paasmon psql`: the embedded PostgreSQL that every command
// shares, and a psql on whichever database paasmon uses.
import { spawn } from 'node:child_process';
import {
  embeddedPaths,
  embeddedUrl,
  ensureEmbeddedServer,
  recordedPort,
  runningServer,
  stopEmbeddedServer,
} from '../../exporters/postgres/embedded/server.js';

/**
 * @typedef {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} Ctx
 * @typedef {import('../config/index.js').Config} Config
 */

/** @param {string} url */
const hidePassword = (url) => url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1[hidden]@');

/** @param {Config} config @param {Ctx} ctx */
export function dbStatusCommand(config, { out }) {
  if (config.databaseUrl) {
    out(`paasmon uses DATABASE_URL (from ${config.databaseSource === 'vcap' ? 'VCAP_SERVICES' : 'the environment'}):`);
    out(`  ${hidePassword(config.databaseUrl)}`);
  }
  const server = runningServer(config.dataDir);
  const port = server?.port ?? recordedPort(config.dataDir);
  out(`embedded PostgreSQL: ${server ? `running (pid ${server.pid}, ${server.status})` : 'stopped'}`);
  out(`  data directory: ${embeddedPaths(config.dataDir).root}`);
  if (port) out(`  url: ${hidePassword(embeddedUrl({ port, password: 'x' }))} (paasmon db url prints it whole)`);
  if (!server) out('  the next paasmon command that needs it starts it');
  return 0;
}

/** @param {Config} config @param {Ctx} ctx */
export async function dbStopCommand(config, { out }) {
  const stopped = await stopEmbeddedServer(config.dataDir);
  out(
    stopped
      ? `embedded PostgreSQL stopped (${embeddedPaths(config.dataDir).root})`
      : 'embedded PostgreSQL was not running',
  );
  return 0;
}

/** @param {Config} config @param {Ctx} ctx */
export async function dbUrlCommand(config, { log, out }) {
  out(await databaseUrl(config, log));
  return 0;
}

/**
 * psql on paasmon's database, with the password in PGPASSWORD (never on the command line, where
 * every user of the machine sees it). Exits with psql's code.
 * @param {Config} config @param {Ctx} ctx @param {object} _flags @param {string[]} args
 */
export async function psqlCommand(config, { log, err }, _flags, args = []) {
  const url = new URL(await databaseUrl(config, log));
  const password = decodeURIComponent(url.password);
  url.password = '';
  // Ctrl-C belongs to psql (it cancels the running query), not to us.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return await new Promise((resolve) => {
      const child = spawn('psql', [url.toString(), ...args], {
        stdio: 'inherit',
        env: { ...process.env, PGPASSWORD: password },
      });
      child.once('error', (e) => {
        const missing = /** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT';
        err(
          missing
            ? 'paasmon: psql is not installed (Debian/Ubuntu: apt-get install postgresql-client); ' +
                'paasmon db url prints the URL for another client'
            : `paasmon: psql could not be started: ${e.message}`,
        );
        resolve(1);
      });
      child.once('close', (code) => resolve(code ?? 1));
    });
  } finally {
    process.off('SIGINT', ignore);
  }
}

/** DATABASE_URL when set, else the embedded server's URL (started when needed). @param {Config} config */
async function databaseUrl(config, /** @type {import('pino').Logger} */ log) {
  if (config.databaseUrl) return config.databaseUrl;
  const server = await ensureEmbeddedServer(config.dataDir, { log });
  return embeddedUrl(server);
}
