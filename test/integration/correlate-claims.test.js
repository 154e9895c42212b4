// paasmon correlate's router_only: a router record in a run's time that no load-generator request
// claims, whichever run the claiming request belongs to (runs of one app may overlap).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(async () => {
  await db?.stop();
});

test('router records claimed by an overlapping run are not router_only; unclaimed ones are', async () => {
  const start = new Date('2026-04-01T10:00:00Z');
  const first = await seedRun(db.query, { label: 'a', app: 'shop', start, spanS: 60, successful: 100 });
  // A second run on the same app, inside the first one's time (two load generators at once).
  const second = await seedRun(db.query, {
    label: 'b',
    app: 'shop',
    start: new Date(start.getTime() + 10_000),
    spanS: 20,
    successful: 50,
  });
  // A run an hour later whose requests share nothing with the first run's time.
  const later = await seedRun(db.query, {
    label: 'c',
    app: 'shop',
    start: new Date(start.getTime() + 3_600_000),
    spanS: 20,
    successful: 30,
  });
  // Other traffic the router logged during the first run: 7 records no load generator sent.
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, vcap_request_id, correlation_id)
    SELECT $1::timestamptz + i * interval '3 seconds', 'guid-shop', 'shop', '/other', 200, 1, 'other-' || i, 'other-' || i
    FROM generate_series(1, 7) i`,
    [start],
  );
  const counts = new Map((await correlationCounts(db.pool)).map((c) => [c.run_id, c]));
  assert.deepEqual(counts.get(first), {
    run_id: first,
    label: 'a',
    tool: null,
    requests: 100,
    without_ids: 0,
    matched: 100,
    loadgen_only: 0,
    router_only: 7,
  });
  // The second run's time (10 s to 30 s) holds about 33 of the first run's requests: claimed by
  // that run, so not router_only; the other traffic at 12, 15, 18 and 21 s is.
  assert.equal(counts.get(second)?.router_only, 4);
  assert.equal(counts.get(later)?.router_only, 0);
  assert.deepEqual(await correlationCounts(db.pool, first), [counts.get(first)]);
});
