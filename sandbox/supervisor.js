// Child processes of `paasmon demo`, each the leader of its own process group, so that stopping one
// stops everything it started too (app instances, a shell's children), and Ctrl-C in the terminal
// reaches only the demo, which then stops them in order. Output goes to a log file per child; the
// tail is kept for error messages.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TAIL_CHARS = 4000;
const STOP_GRACE_MS = 8000;

/**
 * @typedef {object} Child
 * @property {string} name
 * @property {import('node:child_process').ChildProcess} process
 * @property {string} logFile
 * @property {() => string} tail the last lines it wrote (stdout and stderr)
 * @property {Promise<{ code: number | null, signal: string | null }>} exited
 * @property {(pattern: RegExp, timeoutMs: number) => Promise<RegExpExecArray>} waitForOutput
 */

/** @param {number} pgid */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {number} pgid @param {NodeJS.Signals} signal */
function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* already gone */
  }
}

/** @param {string} logDir where each child's output is written */
export function createSupervisor(logDir) {
  /** @type {Child[]} */
  const children = [];
  let stopping = false;
  /** @type {(err: Error) => void} */
  let fail = () => {};
  /** Rejects when an essential child ends before stopAll: what the parent waits on must not wait for it. */
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});

  /**
   * @param {string} name
   * @param {string} command
   * @param {string[]} args
   * @param {{ env: Record<string, string>, ipc?: boolean, essential?: boolean }} options
   *   essential: the parent cannot go on without it (its end rejects `failed`)
   * @returns {Child}
   */
  function start(name, command, args, { env, ipc = false, essential = false }) {
    const logFile = path.join(logDir, `${name}.log`);
    const child = spawn(command, args, {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? /** @type {const} */ (['ipc']) : [])],
    });
    const output = recordOutput(child, logFile);
    /** @type {Child} */
    const entry = {
      name,
      process: child,
      logFile,
      exited: output.exited,
      tail: () => output.text().slice(-TAIL_CHARS).trim(),
      waitForOutput: (pattern, timeoutMs) => waitForMatch(entry, output, pattern, timeoutMs),
    };
    if (essential) {
      entry.exited.then(({ code, signal }) => {
        if (!stopping)
          fail(
            new Error(
              `${name} ended unexpectedly (${signal ?? `exit code ${code}`}); its last output:\n${entry.tail()}`,
            ),
          );
      });
    }
    children.push(entry);
    return entry;
  }

  return {
    start,
    stop: stopGroup,
    failed,
    /** Stops every child, the last started first. */
    async stopAll() {
      stopping = true;
      for (const child of [...children].reverse()) await stopGroup(child);
      children.length = 0;
    },
  };
}

/**
 * @typedef {{ text: () => string, listeners: Array<() => void>,
 *   exited: Promise<{ code: number | null, signal: string | null }> }} RecordedOutput
 */

/**
 * A child's stdout and stderr, appended to its log file and the latest kept in memory; each listener is
 * called on every chunk. A failure to start is written there too.
 * @param {import('node:child_process').ChildProcess} child @param {string} logFile @returns {RecordedOutput}
 */
function recordOutput(child, logFile) {
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  let output = '';
  /** @type {Array<() => void>} */
  const listeners = [];
  const onData = (/** @type {Buffer} */ chunk) => {
    log.write(chunk);
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise((resolve) => {
    child.once('close', (code, signal) => {
      log.end();
      resolve({ code, signal });
    });
    child.once('error', (err) => {
      onData(Buffer.from(`${err.message}\n`));
    });
  });
  return {
    text: () => output,
    listeners,
    exited: /** @type {Promise<{ code: number | null, signal: string | null }>} */ (exited),
  };
}

/**
 * The first match of `pattern` in a child's output; fails when the child exits or the time runs out first.
 * @param {Child} child @param {RecordedOutput} output @param {RegExp} pattern @param {number} timeoutMs
 * @returns {Promise<RegExpExecArray>}
 */
function waitForMatch(child, output, pattern, timeoutMs) {
  const { listeners } = output;
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(output.text());
      if (!match) return false;
      listeners.splice(listeners.indexOf(check), 1);
      clearTimeout(timer);
      resolve(match);
      return true;
    };
    const timer = setTimeout(() => {
      listeners.splice(listeners.indexOf(check), 1);
      reject(new Error(`${child.name} did not start within ${timeoutMs / 1000} s; its last output:\n${child.tail()}`));
    }, timeoutMs);
    listeners.push(check);
    if (check()) return;
    child.exited.then(({ code, signal }) => {
      if (!listeners.includes(check)) return;
      listeners.splice(listeners.indexOf(check), 1);
      clearTimeout(timer);
      reject(
        new Error(
          `${child.name} exited (${signal ?? `code ${code}`}) while starting; its last output:\n${child.tail()}`,
        ),
      );
    });
  });
}

/**
 * Stops one child's whole process group: SIGTERM, then SIGKILL after a grace period (or when
 * the leader is gone but others of its group are still there).
 * @param {Child} child
 */
async function stopGroup(child) {
  const pgid = child.process.pid;
  if (pgid === undefined) return;
  signalGroup(pgid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), STOP_GRACE_MS);
  await child.exited;
  clearTimeout(timer);
  for (let waited = 0; groupAlive(pgid) && waited < 2000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
}
