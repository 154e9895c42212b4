// Runs the real `paasmon` binary as a child process, as a user would: through its shebang, so
// with the V8 heap flags it carries.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { watchOver } from './reaper.js';

export const CLI = fileURLToPath(new URL('../../collector/cli.js', import.meta.url));

/**
 * Environment for a child: only what is given (plus PATH), never the test runner's CF_* settings.
 * @param {Record<string, string | undefined>} env
 */
export function childEnv(env) {
  return /** @type {Record<string, string>} */ ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'info',
    ...env,
  });
}

/**
 * @param {string[]} args @param {Record<string, string | undefined>} env
 * @param {{ timeoutMs?: number, cli?: string, cwd?: string }} [options] cli: another checkout's binary
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
export function runCli(args, env, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(options.cli ?? CLI, args, {
      env: childEnv(env),
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`paasmon ${args.join(' ')} timed out\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts a long-running `paasmon` (e.g. collect) and gives its process and output so far.
 * @param {string[]} args @param {Record<string, string | undefined>} env
 * @param {{ nodeFlags?: string[], cli?: string }} [options] nodeFlags: run `node <flags> cli.js` instead of
 *   the shebang's flags (as manifest.yml's collector command does); cli: another checkout's binary
 */
export function startCli(args, env, { nodeFlags, cli = CLI } = {}) {
  const [command, argv] = nodeFlags ? [process.execPath, [...nodeFlags, cli, ...args]] : [cli, args];
  const child = spawn(command, argv, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  // A long-running paasmon (collect, worker) must not outlive a test that was killed.
  if (child.pid) watchOver({ pids: [child.pid] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => {
    output.stdout += d;
  });
  child.stderr.on('data', (d) => {
    output.stderr += d;
  });
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, output, exited: /** @type {Promise<{ code: number | null, signal: string | null }>} */ (exited) };
}

/**
 * Polls `check` until it returns a truthy value or the time runs out.
 * @template T
 * @param {() => Promise<T> | T} check
 * @param {{ timeoutMs?: number, intervalMs?: number, what?: string }} [options]
 * @returns {Promise<Exclude<T, undefined | null | false | 0 | ''>>}
 */
export async function waitFor(check, options = {}) {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last) return /** @type {any} */ (last);
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
  throw new Error(
    `timed out waiting for ${options.what ?? 'condition'} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
  );
}
