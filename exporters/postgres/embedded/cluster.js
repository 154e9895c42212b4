// The cluster's life: initdb, the settings file paasmon owns, pg_ctl, and the server log's last word.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DATABASE_USER, readOr } from './data-dir.js';

const run = promisify(execFile);

/**
 * initdb with the password from a file only the server's user can read, removed right after.
 * @param {ReturnType<typeof import('./data-dir.js').embeddedPaths>} paths @param {{ binDir: string }} binaries
 * @param {{ uid: number, gid: number } | undefined} owner @param {string} password
 */
export async function initialise(paths, binaries, owner, password) {
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
export const serverSettings = (/** @type {number} */ port) =>
  `# written by paasmon: the port every paasmon command finds this server on\nport = ${port}\n` +
  "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n";

/**
 * pg_ctl in a session of its own, so the server it starts never gets the terminal's Ctrl-C.
 * @param {{ binDir: string }} binaries @param {{ uid: number, gid: number } | undefined} owner @param {string[]} args
 */
export function pgCtl(binaries, owner, args) {
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
export function lastLogLine(file) {
  const lines = readOr(file, '').trim().split('\n');
  return lines.at(-1) || undefined;
}
