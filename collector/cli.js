#!/usr/bin/env -S node --max-semi-space-size=8 --initial-old-space-size=48 --max-old-space-size=128
// @ts-check
// The paasmon binary: runs the command tree of program.js. Exit codes: 0 success, 2 bad usage or
// invalid configuration, 1 other failure.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError, createProgram, describeError } from './program.js';

export { createProgram, describeError };

// As Node.js 21 and later define it: without it, pg's check for a Cloudflare Worker at load builds
// a `Response`, which loads Node.js's whole fetch implementation into every command using the database.
const globals = /** @type {{ navigator?: { userAgent: string } }} */ (globalThis);
globals.navigator ??= { userAgent: `Node.js/${process.versions.node.split('.')[0]}` };

/** @param {string[]} argv */
export async function main(argv) {
  let exitCode = 0;
  const program = createProgram(
    {
      env: process.env,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    },
    (code) => {
      exitCode = code;
    },
  );
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`paasmon: ${describeError(err, process.env.LOG_LEVEL)}\n`);
    return 1;
  }
  return exitCode;
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  // Even a failure no command foresaw is one line (its stack only at LOG_LEVEL=debug).
  const unexpected = (/** @type {unknown} */ err) => {
    process.stderr.write(`paasmon: unexpected error: ${describeError(err, process.env.LOG_LEVEL)}\n`);
    process.exit(1);
  };
  process.on('unhandledRejection', unexpected);
  process.on('uncaughtException', unexpected);
  const code = await main(process.argv);
  // Let stdout drain, then exit: a pool or keep-alive socket left open must not keep us alive.
  process.stdout.write('', () => process.exit(code));
}
