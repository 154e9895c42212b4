// /metrics closed by default on Cloud Foundry: 401 without METRICS_BEARER_TOKEN unless
// METRICS_PUBLIC=true, the health endpoints open, one warning line (issue 44 item 1).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { loadConfig } from '../../collector/config/index.js';
import { createHttpServer, metricsAccess } from '../../collector/metrics-server.js';

const VCAP_APPLICATION = JSON.stringify({ application_uris: ['paasmon.apps.example.com'] });

/**
 * The HTTP server as `collect` makes it from this environment, its log lines, and a fetch of a path.
 * @param {Record<string, string>} env
 */
async function serve(env) {
  /** @type {any[]} */
  const lines = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const registry = new Registry();
  const server = createHttpServer({
    registry,
    ...metricsAccess(loadConfig(env)),
    log: pino({ level: 'info' }, destination),
    health: async () => ({ healthy: true, body: { status: 'ok' } }),
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return {
    lines,
    /** @param {string} path @param {Record<string, string>} [headers] */
    get: async (path, headers = {}) => {
      const response = await fetch(`${base}${path}`, { headers });
      return { status: response.status, text: await response.text() };
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('/metrics access', () => {
  it('is closed on Cloud Foundry without a token: 401, the health endpoints open, one warning line', async () => {
    const http = await serve({ VCAP_APPLICATION });
    try {
      const metrics = await http.get('/metrics');
      assert.equal(metrics.status, 401);
      assert.equal(
        metrics.text,
        '/metrics is closed on Cloud Foundry: set METRICS_BEARER_TOKEN, or METRICS_PUBLIC=true\n',
      );
      assert.equal((await http.get('/metrics', { Authorization: 'Bearer anything' })).status, 401);
      for (const path of ['/livez', '/readyz', '/healthz']) assert.equal((await http.get(path)).status, 200, path);
      const warnings = http.lines.filter((l) => l.level >= 40);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0].msg, /\/metrics answers 401 .*METRICS_BEARER_TOKEN.*METRICS_PUBLIC=true/);
    } finally {
      http.close();
    }
  });

  it('is open on Cloud Foundry with METRICS_PUBLIC=true, and off the platform without a token', async () => {
    /** @type {Record<string, string>[]} */
    const envs = [{ VCAP_APPLICATION, METRICS_PUBLIC: 'true' }, {}];
    for (const env of envs) {
      const http = await serve(env);
      try {
        assert.equal((await http.get('/metrics')).status, 200, JSON.stringify(env));
        assert.deepEqual(http.lines, [], 'no warning');
      } finally {
        http.close();
      }
    }
  });

  it('takes the token wherever it is set, METRICS_PUBLIC or not', async () => {
    /** @type {Record<string, string>[]} */
    const envs = [
      { VCAP_APPLICATION, METRICS_BEARER_TOKEN: 'scrape-me-1234' },
      { VCAP_APPLICATION, METRICS_BEARER_TOKEN: 'scrape-me-1234', METRICS_PUBLIC: 'true' },
      { METRICS_BEARER_TOKEN: 'scrape-me-1234' },
    ];
    for (const env of envs) {
      const http = await serve(env);
      try {
        assert.equal((await http.get('/metrics')).status, 401, JSON.stringify(env));
        assert.equal((await http.get('/metrics', { Authorization: 'Bearer scrape-me-123' })).status, 401);
        assert.equal((await http.get('/metrics', { Authorization: 'Bearer scrape-me-1234' })).status, 200);
        assert.deepEqual(http.lines, [], 'no warning');
      } finally {
        http.close();
      }
    }
  });

  it('refuses a METRICS_PUBLIC that is not true or false', () => {
    assert.throws(
      () => loadConfig({ METRICS_PUBLIC: 'yes' }),
      /^ConfigError: METRICS_PUBLIC must be "true" or "false"/,
    );
  });
});
