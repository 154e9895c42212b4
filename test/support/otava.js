// The real Apache Otava (installed by test/support/load-tools/install.sh into a venv), run as its
// users run it: `otava analyze --output json` with a generated otava.yaml.
import { spawn } from 'node:child_process';
import { toolFile } from './load-tools.js';

/**
 * The change-point indexes Otava finds, per test and metric; a test Otava printed nothing for (it
 * logs an import error and goes on) fails here.
 * @param {string} configFile @param {string[]} tests @param {Record<string, string>} [env]
 * @param {string[]} [args] more arguments of `otava analyze`, e.g. --window 10
 * @returns {Promise<Record<string, Record<string, number[]>>>}
 */
export async function otavaChangePoints(configFile, tests, env = {}, args = []) {
  const bin = toolFile('otava-venv/bin/otava', 'Apache Otava');
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const child = spawn(bin, ['analyze', ...tests, '--output', 'json', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OTAVA_CONFIG: configFile, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
  if (code !== 0) throw new Error(`otava exited ${code}: ${stderr}`);
  /** @type {Record<string, Record<string, number[]>>} */
  const found = {};
  for (const line of stdout.split('\n').filter((l) => l.startsWith('{'))) {
    for (const [test, groups] of Object.entries(JSON.parse(line))) {
      found[test] = {};
      for (const group of /** @type {any[]} */ (groups))
        for (const change of group.changes) (found[test][change.metric] ??= []).push(Number(change.index));
    }
  }
  const missing = tests.filter((t) => !found[t]);
  if (missing.length) throw new Error(`otava printed nothing for ${missing.join(', ')}: ${stderr}`);
  return found;
}
