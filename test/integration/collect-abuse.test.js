// `paasmon collect` behind a public route meets clients that misbehave (test/support/abuse.js): through
// each it answers /livez within a second, keeps storing what the drain receives, and stays within its
// container's memory (manifest.yml: 256M).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAbuseTarget } from '../support/abuse.js';

const MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const LIVEZ_WITHIN_MS = 1000;

describe('collect under abuse', () => {
  /** @type {Awaited<ReturnType<typeof startAbuseTarget>>} */
  let target;
  before(async () => {
    target = await startAbuseTarget();
  });
  after(() => target?.stop());

  /** @param {import('node:test').TestContext} t @param {import('../support/abuse.js').Scenario} figures */
  const check = (t, figures) => {
    t.diagnostic(JSON.stringify(figures));
    assert.ok(figures.slowestLivezMs < LIVEZ_WITHIN_MS, `slowest /livez ${figures.slowestLivezMs} ms`);
    assert.ok(figures.rssBytes < MEMORY_LIMIT_BYTES, `RSS ${figures.rssBytes}`);
  };

  it('1,000 idle connections', async (t) => check(t, await target.idleConnections()));

  it('a request body that never ends is cut off', async (t) => {
    const figures = await target.endlessBody();
    check(t, figures);
    assert.match(figures.outcome, /answered 413|closed/);
  });

  it('a 100 MB body without the token is refused', async (t) => {
    const figures = await target.bigBodyWithoutToken();
    check(t, figures);
    assert.match(figures.outcome, /answered 401|reset/);
  });

  it('10,000 requests per second of 404s', async (t) => {
    const figures = await target.flood404();
    check(t, figures);
    assert.ok(Number(/^(\d+) 404s/.exec(figures.outcome)?.[1]) > 5000, figures.outcome);
  });
});
