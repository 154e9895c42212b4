// Parent-watch for the helper processes tests, benches and the demo start (search nodes,
// Prometheus, embedded PostgreSQL): a tiny detached watcher that outlives its parent by design and
// stops the helpers and removes their temp directories once the parent is gone, however it ended
// (SIGKILL and test-runner timeouts included). It exits by itself once the helpers are gone.
//
// Used as a module: `watchOver({ pids, dirs })`. Run as a process: `node reaper.js <json>`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const CHECK_MS = 200;
const GRACE_MS = 5000;

/**
 * @typedef {object} Watch
 * @property {number[]} pids helper processes to stop when the parent is gone
 * @property {string[]} [dirs] temp directories to remove once they have stopped
 * @property {NodeJS.Signals} [signal] the polite stop (default SIGTERM; PostgreSQL: SIGINT = fast shutdown)
 */

/**
 * Starts a watcher for `watch` on behalf of this process; returns its pid.
 * @param {Watch} watch
 */
export function watchOver(watch) {
  const child = spawn(process.execPath, [SELF, JSON.stringify({ ...watch, parent: process.pid })], {
    detached: true, // its own process group: a group kill of the test runner leaves it to clean up
    stdio: 'ignore',
  });
  child.unref();
  return /** @type {number} */ (child.pid);
}

/** @param {number} pid */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/** @param {number} pid @param {NodeJS.Signals} signal */
function signal(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

/** @param {Watch & { parent: number }} watch */
async function reap({ parent, pids, dirs = [], signal: polite = 'SIGTERM' }) {
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  // The parent is gone when this process was re-parented (to init or a subreaper).
  while (process.ppid === parent) {
    if (!pids.some(alive)) return; // stopped normally: the parent cleans up its own directories
    await sleep(CHECK_MS);
  }
  for (const pid of pids) signal(pid, polite);
  const deadline = Date.now() + GRACE_MS;
  while (pids.some(alive) && Date.now() < deadline) await sleep(CHECK_MS);
  for (const pid of pids) signal(pid, 'SIGKILL');
  while (pids.some(alive)) await sleep(50);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] === SELF) await reap(JSON.parse(/** @type {string} */ (process.argv[2])));
