// Running `paasmon demo` in a test: its process tree watched, and the check that it left nothing
// behind (processes, temporary directories, the ports of the URLs it printed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { startCli } from './cli.js';
import { watchProcessTree } from './process-tree.js';

export const demoDirs = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('paasmon-demo-'));

/** @param {number} port @returns {Promise<boolean>} */
const portFree = (port) =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

/**
 * The exit of a process, or { code: 'timeout' } after `ms`.
 * @param {Promise<{ code: number | null }>} exited @param {number} ms
 */
export async function exitWithin(exited, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, { code: 'timeout' });
  });
  try {
    return await Promise.race([exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ports of every URL the demo printed. @param {string} stdout */
const printedPorts = (stdout) => [
  ...new Set([...stdout.matchAll(/http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]))),
];

/**
 * Runs `paasmon demo` with the process tree under it watched.
 * @param {string[]} args @param {Record<string, string>} env
 */
export function startDemo(args, env) {
  const demo = startCli(['demo', ...args], env);
  const tree = watchProcessTree(/** @type {number} */ (demo.child.pid));
  return { ...demo, tree };
}

/** @param {ReturnType<typeof startDemo>} demo @param {string[]} tmpBefore */
export async function assertNothingLeft(demo, tmpBefore) {
  const seen = demo.tree.stop();
  assert.deepEqual(demo.tree.alive(), [], 'every process that ran under the demo is gone');
  assert.deepEqual(
    demoDirs().filter((d) => !tmpBefore.includes(d)),
    [],
    'no temporary directory left',
  );
  const ports = printedPorts(demo.output.stdout);
  assert.ok(ports.length >= 2, `the demo printed its URLs:\n${demo.output.stdout}`);
  for (const port of ports) assert.ok(await portFree(port), `port ${port} is free again`);
  return seen;
}
