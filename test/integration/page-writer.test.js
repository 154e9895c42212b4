// The page writer's contract: a page copied while the one before it is still being written
// commits only after that one (commitAfter), and is rolled back with it when it fails; what it
// returns counts only the rows inserted now.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/sink/page-writer.js';
import { startTestDatabase } from '../support/database.js';

/** @param {string} id @param {number} [status] */
const request = (id, status = 200) =>
  /** @type {import('../../core/types.js').RouterRequest} */ ({
    kind: 'router_request',
    receivedAt: '2026-11-22T10:00:00.000001Z',
    appGuid: 'g',
    vcapRequestId: id,
    status,
  });

/** A promise settled from outside. */
function deferred() {
  /** @type {(value?: unknown) => void} */
  let resolve = () => {};
  /** @type {(err: Error) => void} */
  let reject = () => {};
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('page writer commitAfter', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  before(async () => {
    db = await startTestDatabase();
    await migrate(db.pool, pino({ level: 'silent' }));
  });
  after(() => db.stop());

  const stored = async () =>
    (await db.query('SELECT vcap_request_id FROM router_requests ORDER BY 1')).rows.map((r) => r.vcap_request_id);
  const position = async () =>
    (await db.query("SELECT position FROM ingest_checkpoints WHERE source = 't'")).rows[0]?.position;

  it('commits rows and checkpoint only after the page before, and not at all when it failed', async () => {
    const writePage = createPageWriter(db.pool);
    const previous = deferred();
    const page = { kind: /** @type {const} */ ('router_request'), checkpoint: { source: 't', position: 'p2' } };
    const failing = writePage({ ...page, records: [request('a')], commitAfter: previous.promise });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await stored(), [], 'copied, not committed, while the page before is pending');
    assert.equal(await position(), undefined);
    previous.reject(new Error('page 1 failed'));
    await assert.rejects(failing, /page 1 failed/);
    assert.deepEqual(await stored(), [], 'rolled back with the page before');
    assert.equal(await position(), undefined);

    const next = deferred();
    const committing = writePage({ ...page, records: [request('b')], commitAfter: next.promise });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await stored(), []);
    next.resolve();
    assert.equal((await committing).count, 1);
    assert.deepEqual(await stored(), ['b']);
    assert.equal(await position(), 'p2');
  });

  it('returns the records it inserted, or with countOnly only how many', async () => {
    await db.query('TRUNCATE router_requests');
    const writePage = createPageWriter(db.pool);
    const page = { kind: /** @type {const} */ ('router_request') };
    const first = await writePage({ ...page, records: [request('c', 201), request('d', 404)] });
    assert.equal(first.count, 2);
    assert.deepEqual(first.records.map((r) => /** @type {any} */ (r).status).sort(), [201, 404]);
    // One new row and one already there: only the new one comes back.
    const again = await writePage({ ...page, records: [request('c', 201), request('g', 503)] });
    assert.equal(again.count, 1);
    assert.deepEqual(
      again.records.map((r) => /** @type {any} */ (r).status),
      [503],
    );
    // Two new rows and one already there: only the new ones count, and nothing is read back.
    const counted = await writePage({ ...page, records: [request('d'), request('e'), request('f')], countOnly: true });
    assert.deepEqual(counted, { count: 2, records: [], cleaned: 0 });
    assert.deepEqual(await stored(), ['c', 'd', 'e', 'f', 'g']);
  });

  it('counts the records stored with cleaned text into the metrics it is handed, once their page commits', async () => {
    await db.query('TRUNCATE router_requests');
    /** @type {Array<[string, number]>} */
    const counted = [];
    const writePage = createPageWriter(db.pool, { countCleaned: (kind, n) => counted.push([kind, n]) });
    const page = { kind: /** @type {const} */ ('router_request') };
    const odd = (/** @type {string} */ id, /** @type {string} */ path) => ({ ...request(id), path });
    await writePage({ ...page, records: [odd('h', 'a\0b'), odd('i', 'x\ud800'), request('j')] });
    await writePage({ ...page, records: [request('k')] });
    const previous = deferred();
    const failing = writePage({ ...page, records: [odd('l', '\0')], commitAfter: previous.promise });
    await new Promise((resolve) => setTimeout(resolve, 300));
    previous.reject(new Error('page before failed'));
    await assert.rejects(failing, /page before failed/);
    assert.deepEqual(counted, [['router_request', 2]]);
    const { rows } = await db.query(
      "SELECT vcap_request_id FROM router_requests WHERE path LIKE '%\ufffd%' ORDER BY 1",
    );
    assert.deepEqual(
      rows.map((r) => r.vcap_request_id),
      ['h', 'i'],
    );
  });

  /**
   * A pool of its own whose statements are kept: which way a page took shows in them.
   * @param {import('node:test').TestContext} t
   */
  const watchedPool = (t) => {
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    t.after(() => pool.end());
    /** @type {string[]} */
    const statements = [];
    pool.on('connect', (client) => {
      const query = client.query.bind(client);
      client.query = /** @type {any} */ (
        (/** @type {any} */ statement, /** @type {any[]} */ ...rest) => {
          statements.push(String(typeof statement === 'string' ? statement : statement?.text));
          return query(statement, ...rest);
        }
      );
    });
    /** Which ways the statements since the last call took. */
    const ways = () => {
      const taken = statements.splice(0);
      return {
        plain: taken.some((q) => /^COPY router_requests /.test(q)),
        keyed: taken.some((q) => /^COPY paasmon_staging_router_requests /.test(q)),
      };
    };
    return { pool, ways };
  };

  // countOnly pages go straight into the table and fall back to the keyed insert on a duplicate.
  it('counts a page with a row twice in it, or a row already stored, once; fills in what it knows', async (t) => {
    await db.query('TRUNCATE router_requests');
    const { pool, ways } = watchedPool(t);
    const writePage = createPageWriter(pool);
    const page = { kind: /** @type {const} */ ('router_request'), countOnly: true };
    assert.deepEqual(await writePage({ ...page, records: [request('h'), request('i')] }), {
      count: 2,
      records: [],
      cleaned: 0,
    });
    assert.deepEqual(ways(), { plain: true, keyed: false }, 'new rows: one COPY into the table');
    const twice = await writePage({ ...page, records: [request('j'), request('j'), request('k')] });
    assert.equal(twice.count, 2);
    assert.deepEqual(ways(), { plain: true, keyed: true }, 'a duplicate: the keyed insert after the plain COPY');
    const named = { ...request('h'), appName: 'shop' };
    const encoded = encodeRecords('router_request', [named, request('l')]);
    assert.equal((await writePage({ ...page, records: [], encoded })).count, 1);
    assert.deepEqual(await stored(), ['h', 'i', 'j', 'k', 'l']);
    const names = await db.query("SELECT app_name FROM router_requests WHERE vcap_request_id = 'h'");
    assert.equal(names.rows[0].app_name, 'shop', 'the stored row got the name the new page knew');
    // A page far larger than a socket's buffer whose first row is stored: the COPY fails while
    // its data is still being sent.
    const many = Array.from({ length: 30_000 }, (_, i) => request(`many-${String(i).padStart(5, '0')}`));
    const big = encodeRecords('router_request', [request('i'), ...many]);
    assert.equal((await writePage({ ...page, records: [], encoded: big })).count, many.length);
    assert.deepEqual(ways(), { plain: true, keyed: true });
    const { n } = (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0];
    assert.equal(n, 5 + many.length);
  });

  it('waits for a page in flight that holds the same row, then counts only its own new rows', async (t) => {
    await db.query('TRUNCATE router_requests, ingest_checkpoints');
    const { pool, ways } = watchedPool(t);
    const writePage = createPageWriter(pool);
    const before = deferred();
    const page = { kind: /** @type {const} */ ('router_request'), countOnly: true };
    /** @param {string} sql */
    const until = async (sql) => {
      const deadline = Date.now() + 30_000;
      while ((await db.query(sql)).rows.length === 0) {
        assert.ok(Date.now() < deadline, `waited for: ${sql}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const first = writePage({
      ...page,
      records: [request('m')],
      commitAfter: before.promise,
      checkpoint: { source: 't', position: 'p1' },
    });
    // Copied, and waiting for the page before it to commit.
    await until(
      "SELECT 1 FROM pg_stat_activity WHERE state = 'idle in transaction' AND backend_type = 'client backend'",
    );
    const second = writePage({
      ...page,
      records: [request('m'), request('n')],
      commitAfter: first,
      checkpoint: { source: 't', position: 'p2' },
    });
    // Its COPY waits for the first page's transaction, which holds the same row.
    await until("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'COPY %'");
    assert.deepEqual(await stored(), [], 'neither committed while the page before them is pending');
    before.resolve();
    assert.equal((await first).count, 1);
    assert.equal((await second).count, 1);
    assert.deepEqual(await stored(), ['m', 'n']);
    assert.equal(await position(), 'p2');
    assert.deepEqual(ways(), { plain: true, keyed: true });
  });

  it('copies pages that share a row in order: the later one waits, neither waits for the other', async (t) => {
    await db.query('TRUNCATE router_requests, ingest_checkpoints');
    const { pool } = watchedPool(t);
    const writePage = createPageWriter(pool);
    const page = { kind: /** @type {const} */ ('router_request'), countOnly: true };
    // The same request logged twice (two indices with a copy of it), at the end of one page and
    // the start of the next. Copied at once, the short second page would take the row first and the
    // first page would wait for it, while the second waits to commit after the first.
    const long = Array.from({ length: 20_000 }, (_, i) => request(`long-${String(i).padStart(5, '0')}`));
    const copied = deferred();
    const first = writePage({
      ...page,
      records: [],
      encoded: encodeRecords('router_request', [...long, request('shared')]),
      onCopied: () => copied.resolve(),
    });
    first.finally(() => copied.resolve());
    const second = writePage({
      ...page,
      records: [request('shared'), request('after')],
      commitAfter: first,
      copyAfter: copied.promise,
    });
    const timeout = new Promise((resolve) => setTimeout(() => resolve('stuck'), 20_000).unref());
    if ((await Promise.race([Promise.all([first, second]), timeout])) === 'stuck') {
      // Let the pool end: the two transactions would wait for each other for ever.
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND state IN ('active', 'idle in transaction')`);
      assert.fail('the two pages waited for each other');
    }
    assert.equal((await first).count, long.length + 1);
    assert.equal((await second).count, 1);
  });
});
