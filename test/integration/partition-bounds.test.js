// paasmon_partition_bounds: the bounds of every partition of the time-partitioned tables read
// from the catalog, the same instants whatever the session's time zone and date style, NULLs for
// the default partition; paasmon_partitions() lists the day partitions with those bounds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  for (const day of ['2026-03-07T15:00:00Z', '2026-03-08T00:00:00Z'])
    await db.query("SELECT paasmon_ensure_partition('router_requests', $1)", [day]);
  await db.query("SELECT paasmon_ensure_partition('loadgen_requests', '2026-03-07T23:59:59Z')");
});

after(async () => {
  await db?.stop();
});

/** The UTC day a partition's name says (<table>_pYYYYMMDD), or null for the default partition. @param {string} name */
function dayOf(name) {
  const match = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : null;
}

test('every partition has the bounds of its day, whatever the session settings', async () => {
  for (const settings of [
    "SET TimeZone = 'UTC'",
    "SET TimeZone = 'Asia/Kolkata'; SET DateStyle = 'SQL, DMY'",
    "SET TimeZone = 'America/St_Johns'; SET DateStyle = 'German'",
  ]) {
    const client = await db.pool.connect();
    try {
      await client.query(settings);
      const { rows } = await client.query(
        `SELECT b.parent::regclass::text AS parent, b.partition::regclass::text AS partition,
                extract(epoch FROM b.from_ts) * 1000 AS from_ms, extract(epoch FROM b.to_ts) * 1000 AS to_ms
        FROM paasmon_partition_bounds(ARRAY['router_requests', 'loadgen_requests']::regclass[]) b`,
      );
      await client.query('RESET ALL');
      check(settings, rows);
    } finally {
      client.release();
    }
  }
});

/** @param {string} settings @param {any[]} rows */
function check(settings, rows) {
  const names = rows.map((r) => r.partition);
  for (const expected of ['router_requests_p20260307', 'router_requests_p20260308', 'loadgen_requests_p20260307'])
    assert.ok(names.includes(expected), `${settings}: ${expected} in ${names}`);
  assert.ok(names.includes('router_requests_default') && names.includes('loadgen_requests_default'));
  assert.ok(!names.some((n) => n.startsWith('instance_samples')), 'only the parents asked for');
  for (const row of rows) {
    const day = dayOf(row.partition);
    assert.equal(row.parent, row.partition.replace(/_(p\d{8}|default)$/, ''));
    if (day === null) {
      assert.equal(row.from_ms, null, `${settings}: ${row.partition}`);
      assert.equal(row.to_ms, null, `${settings}: ${row.partition}`);
    } else {
      assert.equal(Number(row.from_ms), day, `${settings}: ${row.partition} from`);
      assert.equal(Number(row.to_ms), day + 86_400_000, `${settings}: ${row.partition} to`);
    }
  }
}

test('paasmon_partitions lists the day partitions of the three tables with those bounds', async () => {
  const { rows } = await db.query(
    `SELECT parent, partition, extract(epoch FROM from_ts) * 1000 AS from_ms, extract(epoch FROM to_ts) * 1000 AS to_ms,
            bytes
    FROM paasmon_partitions() ORDER BY partition`,
  );
  assert.ok(rows.length >= 3);
  assert.ok(rows.some((r) => r.partition === 'router_requests_p20260308' && r.parent === 'router_requests'));
  for (const row of rows) {
    const day = dayOf(row.partition);
    assert.notEqual(day, null, `${row.partition}: the default partition is not listed`);
    assert.equal(Number(row.from_ms), day);
    assert.equal(Number(row.to_ms), Number(day) + 86_400_000);
    assert.ok(Number(row.bytes) > 0);
  }
});
