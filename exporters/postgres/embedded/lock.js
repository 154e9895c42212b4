// A lock directory, so that of several paasmon processes at once only one initialises and starts the server.
import fs from 'node:fs';
import path from 'node:path';
import { isAlive, readOr } from './data-dir.js';

const LOCK_TIMEOUT_MS = 120_000;

/**
 * Runs `work` holding the lock directory; a lock left by a process that died is taken over.
 * @template T @param {string} lock @param {() => Promise<T>} work @returns {Promise<T>}
 */
export async function withLock(lock, work) {
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

/** @param {string} file */
const statOr = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
};
