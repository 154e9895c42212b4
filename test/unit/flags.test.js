import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  durationFlag,
  headerFlags,
  keyValueFlags,
  loadgenOptions,
  numberFlag,
  timeFlag,
} from '../../collector/commands/flags.js';
import { flagsFromMeta } from '../../collector/commands/worker.js';

const config = { correlationHeader: 'X-Correlation-Id', runId: undefined, instanceIndex: undefined };

describe('flag values', () => {
  it('numberFlag: whole numbers, minimums, and the flag named in the error', () => {
    assert.equal(numberFlag(undefined, '--n'), undefined);
    assert.equal(numberFlag('8', '--parallel', { integer: true, min: 1 }), 8);
    assert.equal(numberFlag('0.5', '--rate', { min: 0.001 }), 0.5);
    assert.throws(
      () => numberFlag('1.5', '--parallel', { integer: true }),
      /--parallel must be a whole number, got "1.5"/,
    );
    assert.throws(() => numberFlag('0', '--requests', { integer: true, min: 1 }), /of at least 1/);
    assert.throws(() => numberFlag('', '--rate'), { variable: '--rate' });
    assert.throws(() => numberFlag('ten', '--rate'), /got "ten"/);
  });

  it('durationFlag and timeFlag', () => {
    assert.equal(durationFlag('2m', '--duration'), 120_000);
    assert.throws(() => durationFlag('0s', '--duration'), /--duration must be a duration/);
    assert.throws(() => durationFlag('60', '--timeout'), { variable: '--timeout' });
    const now = new Date('2026-11-22T10:00:00Z');
    assert.equal(timeFlag('now-1h', '--from', now), '2026-11-22T09:00:00.000Z');
    assert.throws(() => timeFlag('2026-11-22 10:00', '--from', now), /--from must be an ISO 8601 time with a zone/);
  });

  it('keyValueFlags and headerFlags', () => {
    assert.deepEqual(keyValueFlags(['a=1', 'url=http://x/?q=a=b', 'empty='], '--meta'), {
      a: '1',
      url: 'http://x/?q=a=b',
      empty: '',
    });
    assert.throws(() => keyValueFlags(['=1'], '--meta'), /--meta takes key=value, got "=1"/);
    assert.deepEqual(headerFlags(['Accept: application/json', 'X-A:b: c']), {
      accept: 'application/json',
      'x-a': 'b: c',
    });
    assert.throws(() => headerFlags(['no colon']), /--header takes "Name: value"/);
  });
});

describe('loadgenOptions', () => {
  it('closed model defaults: one in flight, connections = parallel, GET, 10 s timeout', () => {
    const options = loadgenOptions({ url: 'http://127.0.0.1:8080/a?b=1', requests: '5' }, config);
    assert.equal(options.url, 'http://127.0.0.1:8080/a?b=1');
    assert.equal(options.parallel, 1);
    assert.equal(options.connections, 1);
    assert.equal(options.method, 'GET');
    assert.equal(options.timeoutMs, 10_000);
    assert.equal(options.runId, undefined);
    assert.match(options.worker, /-\d+$/);
  });

  it('open model: at most 100 connections unless --connections says otherwise', () => {
    assert.equal(loadgenOptions({ url: 'http://h/', duration: '1s', rate: '50' }, config).connections, 100);
    const given = loadgenOptions({ url: 'http://h/', duration: '1s', rate: '50', connections: '3' }, config);
    assert.equal(given.connections, 3);
  });

  it('--ramp: open model only, within --duration; 0 or absent is no ramp', () => {
    const open = { url: 'http://h/', duration: '10s', rate: '50' };
    assert.equal(loadgenOptions({ ...open, ramp: '2s' }, config).rampMs, 2000);
    assert.equal(loadgenOptions({ ...open, ramp: '10s' }, config).rampMs, 10_000, 'the whole run may ramp');
    assert.equal(loadgenOptions({ ...open, ramp: '0' }, config).rampMs, 0);
    assert.equal(loadgenOptions({ ...open, ramp: '0s' }, config).rampMs, 0);
    assert.equal(loadgenOptions(open, config).rampMs, 0);
    assert.equal(loadgenOptions({ url: 'http://h/', requests: '100', rate: '50', ramp: '1m' }, config).rampMs, 60_000);
    assert.throws(() => loadgenOptions({ ...open, ramp: '11s' }, config), {
      variable: '--ramp',
      message: /--ramp 11s is longer than --duration/,
    });
    assert.throws(() => loadgenOptions({ url: 'http://h/', duration: '10s', ramp: '1s' }, config), {
      variable: '--ramp',
      message: /--ramp raises the rate of --rate/,
    });
    assert.throws(() => loadgenOptions({ ...open, ramp: 'slowly' }, config), /--ramp must be a duration/);
    assert.throws(() => loadgenOptions({ ...open, ramp: '-1s' }, config), /--ramp must be a duration/);
  });

  it('run and worker name from the configuration (RUN_ID, CF_INSTANCE_INDEX), a flag wins', () => {
    const fromConfig = loadgenOptions({ url: 'http://h/', duration: '1s' }, { ...config, runId: 4, instanceIndex: 2 });
    assert.equal(fromConfig.runId, 4);
    assert.equal(fromConfig.worker, 'instance-2');
    const fromFlag = loadgenOptions(
      { url: 'http://h/', duration: '1s', run: '9', worker: 'w' },
      { ...config, runId: 4 },
    );
    assert.equal(fromFlag.runId, 9);
    assert.equal(fromFlag.worker, 'w');
  });

  it('refuses what cannot run', () => {
    assert.throws(() => loadgenOptions({ url: 'http://h/' }, config), /--requests N or --duration D is required/);
    assert.throws(() => loadgenOptions({ url: 'ftp://h/', requests: '1' }, config), /--url must be an http/);
    assert.throws(() => loadgenOptions({ url: 'h', requests: '1' }, config), /--url must be an http/);
  });

  it('the worker reads the same parameters from a run meta', () => {
    const meta = {
      url: 'http://h/x',
      duration: '30s',
      parallel: '4',
      rate: '100',
      ramp: '5s',
      start_at: '2026-11-22T10:00:00Z',
    };
    const options = loadgenOptions(flagsFromMeta(meta), config);
    assert.equal(options.rampMs, 5000);
    assert.equal(options.durationMs, 30_000);
    assert.equal(options.parallel, 4);
    assert.equal(options.rate, 100);
    assert.equal(options.startAt, '2026-11-22T10:00:00.000Z');
  });
});
