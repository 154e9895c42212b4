// The drain's page path (collector/pipeline/pushed-pages.js) into a real PostgreSQL and the
// Prometheus sink: pages whose rows are all new are observed from what the intake kept, without
// reading the rows back; a retransmitted batch is stored and observed once; a record whose value
// its column cannot hold is left out, not its page; two pages are written at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { pushedPages } from '../../collector/pipeline/pushed-pages.js';
import { routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { startTestDatabase } from '../support/database.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';
import { logMessage, rtrEnvelope } from '../support/syslog-agent-standin.js';
import { DRAIN_BATCH_ROWS } from '../../core/tunables.js';

const log = pino({ level: 'silent' });

/** The drain's records of `truth`, as it parses what the agent sends. @param {ReturnType<typeof makeRequests>} truth */
const recordsOf = (truth) =>
  truth.map((r) => {
    const text = logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app })).toString();
    const result = routerRequestFromSyslog(text, {});
    assert.ok(result.ok, text);
    return result.record;
  });

/** The response-time histogram's count and sum over all series, from the exposition text. @param {string} text */
function histogram(text) {
  const total = (/** @type {string} */ suffix) =>
    [...text.matchAll(new RegExp(`^paasmon_router_response_time_seconds_${suffix}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  return { count: total('count'), sum: total('sum') };
}

describe('drain page path: stored and observed once', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {pg.Pool} */
  let pool;
  before(async () => {
    db = await startTestDatabase();
    await migrate(db.pool, log);
    // One connection: the check for the staging table runs where the pages were written.
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
  });
  after(async () => {
    await pool.end();
    await db.stop();
  });

  it('observes a page of new rows without reading it back, and a retransmitted batch only once', async () => {
    const prometheus = createPrometheusSink({ collectDefaultMetrics: false });
    let stored = 0;
    let inserted = 0;
    const intake = pushedPages({ pool, log })({
      maxBuffered: 100_000,
      observe: true,
      onStored: (records, written, observed) => {
        stored += records;
        inserted += written.count;
        assert.ok(observed, 'observe: a tally of the requests inserted');
        prometheus.showRouterRequests(observed);
      },
      onPending: () => {},
    });
    const truth = makeRequests(3000, Date.parse('2026-11-22T09:00:00Z'), 60_000, 'observed');
    const seconds = (/** @type {typeof truth} */ some) => some.reduce((sum, r) => sum + r.responseUs / 1e6, 0);
    try {
      // One record the parse let through with a status no int4 holds: left out, its page kept.
      const first = recordsOf(truth.slice(0, 2000));
      first.splice(700, 0, { ...first[700], correlationId: 'out-of-range', status: 2 ** 31 });
      /** @type {string[]} */
      const unusable = [];
      assert.equal(
        intake.write(first, (error) => unusable.push(error.message)),
        2000,
      );
      assert.deepEqual(unusable, ['postgres: status is out of range: 2147483648']);
      await intake.flush({ force: true });
      assert.equal(intake.pending, 0);
      let shown = histogram(await prometheus.registry.metrics());
      assert.equal(shown.count, 2000);
      assert.ok(Math.abs(shown.sum - seconds(truth.slice(0, 2000))) < 1e-6, `${shown.sum}`);
      const staging = async () =>
        (await pool.query("SELECT to_regclass('pg_temp.paasmon_staging_router_requests') AS t")).rows[0].t;
      assert.equal(await staging(), null, 'all new: no keyed insert, nothing read back');

      // The agent sends the last 1000 again (a retry after a lost answer), with 1000 new ones.
      intake.write(recordsOf(truth.slice(1000)), (error) => assert.fail(error));
      await intake.flush({ force: true });
      shown = histogram(await prometheus.registry.metrics());
      assert.equal(shown.count, 3000, 'the retransmitted rows are observed once');
      assert.ok(Math.abs(shown.sum - seconds(truth)) < 1e-6, `${shown.sum}`);
      assert.equal(stored, 4000);
      assert.equal(inserted, 3000);
      assert.equal((await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n, 3000);
      const requests = await prometheus.registry.getSingleMetric('paasmon_router_requests_total')?.get();
      const byStatus = Object.fromEntries(
        ['2xx', '4xx', '5xx'].map((c) => [
          c,
          requests?.values.filter((v) => v.labels.status_class === c).reduce((sum, v) => sum + v.value, 0),
        ]),
      );
      const expected = (/** @type {(s: number) => boolean} */ is) => truth.filter((r) => is(r.status)).length;
      assert.deepEqual(byStatus, {
        '2xx': expected((s) => s < 300),
        '4xx': expected((s) => s >= 400 && s < 500),
        '5xx': expected((s) => s >= 500),
      });
    } finally {
      await intake.close();
    }
  });

  it('writes two pages at once: the next page is copied while the last one commits', async () => {
    const { pool: watched, open, end } = holdingCommits(db.url, () => 300);
    let stored = 0;
    const intake = pushedPages({ pool: watched, log })({
      maxBuffered: 100_000,
      observe: false,
      onStored: (records) => void (stored += records),
      onPending: () => {},
    });
    const truth = makeRequests(3 * DRAIN_BATCH_ROWS, Date.parse('2026-11-23T09:00:00Z'), 60_000, 'in-flight');
    const rowCount = async () => (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
    const before = await rowCount();
    try {
      for (let page = 0; page < 3; page++)
        intake.write(recordsOf(truth.slice(page * DRAIN_BATCH_ROWS, (page + 1) * DRAIN_BATCH_ROWS)), assert.fail);
      await intake.flush({ force: true });
      await intake.flush({ force: true });
      assert.equal(stored, 3 * DRAIN_BATCH_ROWS);
      assert.equal(open.most, 2, 'two pages in flight, never more');
      assert.equal(await rowCount(), before + 3 * DRAIN_BATCH_ROWS);
    } finally {
      await intake.close();
      await end();
    }
  });

  it('keeps filling the open page while another write is in flight: no small page when one of two ends', async () => {
    // The first page commits soon, the second late: rows that come while the second is written wait for it.
    let commits = 0;
    const { pool: watched, end } = holdingCommits(db.url, () => ((commits += 1) === 1 ? 100 : 1500));
    /** @type {number[]} */
    const pages = [];
    const intake = pushedPages({ pool: watched, log })({
      maxBuffered: 100_000,
      observe: false,
      onStored: (records) => void pages.push(records),
      onPending: () => {},
    });
    const truth = makeRequests(2 * DRAIN_BATCH_ROWS + 200, Date.parse('2026-11-23T10:00:00Z'), 60_000, 'filling');
    const records = recordsOf(truth);
    try {
      intake.write(records.slice(0, DRAIN_BATCH_ROWS), assert.fail);
      intake.write(records.slice(DRAIN_BATCH_ROWS, 2 * DRAIN_BATCH_ROWS), assert.fail);
      const writing = intake.flush();
      intake.write(records.slice(2 * DRAIN_BATCH_ROWS, 2 * DRAIN_BATCH_ROWS + 100), assert.fail);
      while (pages.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      intake.write(records.slice(2 * DRAIN_BATCH_ROWS + 100), assert.fail);
      await intake.flush({ force: true });
      await writing;
      await intake.flush({ force: true });
      assert.deepEqual(
        pages.sort((a, b) => a - b),
        [200, DRAIN_BATCH_ROWS, DRAIN_BATCH_ROWS],
      );
    } finally {
      await intake.close();
      await end();
    }
  });
});

/**
 * A pool whose COPY transactions are watched: how many are open at once (`open.most`), each COMMIT held
 * `holdMs()` first so that overlaps show.
 * @param {string} url @param {() => number} holdMs
 */
function holdingCommits(url, holdMs) {
  const wide = new pg.Pool({ connectionString: url, max: 4 });
  wide.on('error', () => {});
  const open = { now: 0, most: 0 };
  const pool = /** @type {pg.Pool} */ (
    /** @type {unknown} */ ({
      query: (/** @type {any[]} */ ...args) => /** @type {any} */ (wide.query)(...args),
      async connect() {
        const client = /** @type {any} */ (await wide.connect());
        if (!client.watched) {
          const query = client.query.bind(client);
          let copying = false;
          client.query = (/** @type {any} */ what, /** @type {any[]} */ ...rest) => {
            // A COPY is a stream, not text.
            if (typeof what !== 'string' && !copying) open.most = Math.max(open.most, (open.now += 1));
            if (typeof what !== 'string') copying = true;
            if (what !== 'COMMIT' || !copying) return query(what, ...rest);
            return (async () => {
              await new Promise((resolve) => setTimeout(resolve, holdMs()));
              const done = await query(what, ...rest);
              open.now -= 1;
              copying = false;
              return done;
            })();
          };
          client.watched = true;
        }
        return client;
      },
    })
  );
  return { pool, open, end: () => wide.end() };
}
