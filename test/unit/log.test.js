import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, serializeError } from '../../core/log.js';

function capture() {
  /** @type {string[]} */
  const lines = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('scrubs secret values from messages, fields and nested error causes', () => {
    const { lines, destination } = capture();
    const log = createLogger({ secrets: ['hunter2-pw', 'tok-123'], destination, pretty: false });
    const cause = new Error('connect to postgres://u:hunter2-pw@db failed');
    log.error({ err: new Error('outer', { cause }), header: 'Bearer tok-123' }, 'login as admin/hunter2-pw');
    const text = lines.join('');
    assert.ok(!text.includes('hunter2-pw') && !text.includes('tok-123'), text);
    assert.equal((text.match(/\[REDACTED\]/g) ?? []).length, 3);
    const entry = JSON.parse(lines[0]);
    assert.equal(entry.err.cause.message, 'connect to postgres://u:[REDACTED]@db failed');
  });

  it('logs an axios-like error without its request config or headers', () => {
    const err = Object.assign(new Error('Request failed'), {
      code: 'ERR_BAD_RESPONSE',
      config: { headers: { Authorization: 'bearer abc' } },
      response: { status: 502, config: {} },
    });
    assert.deepEqual(serializeError(err), {
      type: 'Error',
      message: 'Request failed',
      code: 'ERR_BAD_RESPONSE',
      status: 502,
    });
  });

  it('writes what pino writes, at the level given, through a child and a level changed later', () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination, pretty: false });
    log.debug('not at info');
    log.info({ n: 1 }, 'first');
    log.child({ job: 'poll' }).warn('from a child');
    log.level = 'debug';
    log.debug('now at debug');
    const entries = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      entries.map((e) => [e.level, e.msg, e.name, e.job, e.n]),
      [
        [30, 'first', 'paasmon', undefined, 1],
        [40, 'from a child', 'paasmon', 'poll', undefined],
        [20, 'now at debug', 'paasmon', undefined, undefined],
      ],
    );
    assert.equal(log.isLevelEnabled('debug'), true);
  });

  it('loads pino only when a line is logged at an enabled level', () => {
    const script = (/** @type {string} */ calls) =>
      `import { createRequire } from 'node:module'; import { createLogger } from './core/log.js';` +
      `const log = createLogger({ level: 'info' }); ${calls}` +
      `const cache = createRequire(import.meta.url).cache;` +
      `console.log(Object.keys(cache).some((f) => f.includes('/node_modules/pino/')));`;
    const loaded = (/** @type {string} */ calls) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script(calls)], {
        cwd: new URL('../../', import.meta.url),
        encoding: 'utf8',
      }).stdout.trim();
    assert.equal(loaded("log.debug('quiet'); log.trace('quieter');"), 'false');
    assert.equal(loaded("log.warn('heard');"), 'true');
  });
});
