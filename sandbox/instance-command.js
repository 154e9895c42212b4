// The command line of one app instance: the implementation's runtime (Node.js, or the JDK on the
// compiled Java app), pinned with taskset to the CPUs of its entitlement, as a Cloud Foundry cell's
// cgroup limits a container to its share.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { javaAppArgs, onPath } from './bulletin-board-java/launch.js';

const NODE_APP = fileURLToPath(new URL('./bulletin-board/server.js', import.meta.url));
export const IMPLEMENTATIONS = ['node', 'java'];

/**
 * The CPUs instance `index` may run on: `cores` of them, the instances side by side, wrapping
 * around the machine's CPUs. @param {number} index @param {number} cores @param {number[]} cpus
 */
export function instanceCpus(index, cores, cpus) {
  const picked = new Set();
  for (let i = 0; i < Math.min(cores, cpus.length); i++) picked.add(cpus[(index * cores + i) % cpus.length]);
  return [...picked].sort((a, b) => a - b);
}

/**
 * Whether instances can be pinned to their entitlement here, and why not.
 * @param {number} cores per instance @param {Record<string, string | undefined>} env PATH
 * @returns {{ taskset: string | undefined, cpus: number[], note: string | null }}
 */
export function pinning(cores, env) {
  const taskset = onPath('taskset', env.PATH);
  const cpus = os.cpus().map((_, i) => i);
  let note = null;
  if (!taskset) note = 'not applied: no taskset on PATH (apt-get install util-linux)';
  else if (cores > cpus.length)
    note = `not applied in full: ${cores} cores per instance, this machine has ${cpus.length}`;
  else if (!Number.isInteger(cores)) note = `not applied: taskset pins whole cores, got ${cores}`;
  return { taskset, cpus, note };
}

/**
 * @param {object} options
 * @param {string} options.impl node or java
 * @param {number} options.index
 * @param {number} options.cores per instance
 * @param {ReturnType<typeof pinning>} options.pin
 * @param {{ java?: string, jar?: string, classesDir?: string }} options.java the compiled Java app
 * @returns {{ command: string, args: string[], cpus: number[] | null }}
 */
export function instanceCommand({ impl, index, cores, pin, java }) {
  let command = process.execPath;
  let args = [NODE_APP];
  if (impl === 'java') {
    if (!java.java || !java.jar || !java.classesDir) throw new Error('the Java app is not compiled (JAVA_CLASSES_DIR)');
    command = java.java;
    args = javaAppArgs({ jar: java.jar }, java.classesDir);
  } else if (impl !== 'node') {
    throw new Error(`no sample app implementation "${impl}" (${IMPLEMENTATIONS.join(', ')})`);
  }
  if (!pin.taskset || !Number.isInteger(cores)) return { command, args, cpus: null };
  const cpus = instanceCpus(index, Math.ceil(cores), pin.cpus);
  return { command: pin.taskset, args: ['-c', cpus.join(','), command, ...args], cpus };
}
