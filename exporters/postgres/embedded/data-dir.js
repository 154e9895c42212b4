// The embedded server's data directory: its layout, password, recorded port and the postmaster.pid of a
// running server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../../core/errors.js';

/** PostgreSQL refuses to run as root: as root, the server runs as this user (created when missing). */
export const SERVER_USER = 'postgres';
export const DATABASE_USER = 'paasmon';

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

/** @param {string} root @param {boolean} asRoot */
export function prepareDataDir(root, asRoot) {
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
export function closedAncestor(dir) {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return current;
    if (current === path.dirname(current)) return undefined;
  }
}

/** Reads the password, generating it (mode 0600) on first use. @param {ReturnType<typeof embeddedPaths>} paths */
export function readPassword(paths) {
  try {
    fs.writeFileSync(paths.password, crypto.randomBytes(18).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
  }
  fs.chmodSync(paths.password, 0o600);
  return fs.readFileSync(paths.password, 'utf8').trim();
}

/** @param {string} file @param {string} fallback */
export const readOr = (file, fallback) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
};

/** @param {number} pid */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}
