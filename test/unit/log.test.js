import assert from 'node:assert/strict';
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
});
