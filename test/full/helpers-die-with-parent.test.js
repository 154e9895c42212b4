// Every kind of helper process a test, bench or the demo starts dies with its parent however the
// parent ends: each is started from a child process, the child is SIGKILLed, and the helper and
// its temp directory must be gone.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../support/cli.js';
import { alive } from '../support/reaper.js';

const STARTER = fileURLToPath(new URL('../support/start-helper.js', import.meta.url));

/** @param {string} kind */
async function startInChild(kind) {
  const child = spawn(process.execPath, [STARTER, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const started = await waitFor(() => /^STARTED (.*)$/m.exec(out)?.[1], {
    timeoutMs: 240_000,
    what: `${kind} to start in the child`,
  });
  return { child, helper: /** @type {{ pid: number, dir: string }} */ (JSON.parse(started)) };
}

describe('helper processes die with their parent, SIGKILL included', { timeout: 600_000 }, () => {
  for (const kind of ['postgres', 'prometheus', 'opensearch']) {
    it(`${kind}: gone, and its temp directory removed, after its parent is SIGKILLed`, async () => {
      const { child, helper } = await startInChild(kind);
      assert.ok(alive(helper.pid), `${kind} runs (pid ${helper.pid})`);
      assert.ok(fs.existsSync(helper.dir), `${kind} has its directory ${helper.dir}`);
      const exited = new Promise((resolve) => child.once('close', (_, signal) => resolve(signal)));
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      await waitFor(() => !alive(helper.pid), { timeoutMs: 30_000, what: `${kind} (pid ${helper.pid}) to stop` });
      await waitFor(() => !fs.existsSync(helper.dir), { timeoutMs: 10_000, what: `${helper.dir} to be removed` });
    });
  }
});
