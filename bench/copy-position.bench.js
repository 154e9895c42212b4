// Where a keyed COPY's rows land among those already in a day's partition: BENCH_COPY_ROWS router
// rows of one hour COPYed into three tables shaped as a router_requests partition (its key and
// indexes): one empty, one holding BENCH_HELD_ROWS rows spread over the whole day (the new keys land
// among them, as in the scale bench's partition of today), one holding as many rows all before that
// hour (the new keys come after them, as a collector's do). Rounds of the three back to back, the
// order turning; the median of each table's ratio to the empty one.
// Run: npm run bench -- copy-position   (BENCH_COPY_ROWS=50000 BENCH_HELD_ROWS=666666 BENCH_SCALE_ROUNDS=6)
import pino from 'pino';
import { binaryRows, copyInsert, inTransaction } from '../exporters/postgres/sink/copy.js';
import { migrate } from '../exporters/postgres/schema/migrate.js';
import { TABLE_OF_KIND } from '../exporters/postgres/rows/tables.js';
import { startTestDatabase } from '../test/support/database.js';
import { makeRequests, routerRecord } from '../test/support/router-docs.js';

const env = (/** @type {string} */ name, /** @type {number} */ fallback) => Number(process.env[name] ?? fallback);
const COPY_ROWS = env('BENCH_COPY_ROWS', 50_000);
const HELD_ROWS = env('BENCH_HELD_ROWS', 666_666);
const ROUNDS = env('BENCH_SCALE_ROUNDS', 6);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const TABLES = { empty: 'copy_into_empty', among: 'copy_among_held', after: 'copy_after_held' };

/** @param {number[]} values */
const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const db = await startTestDatabase({ bulk: true });
try {
  await migrate(db.pool, pino({ level: 'silent' }));
  for (const table of Object.values(TABLES)) {
    await db.query(`CREATE TABLE ${table} (LIKE router_requests INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    await db.query(`ALTER TABLE ${table} ADD UNIQUE (received_at, vcap_request_id, app_guid)`);
    await db.query(`CREATE INDEX ON ${table} USING hash (correlation_id)`);
    await db.query(`CREATE INDEX ON ${table} (app_name, received_at)`);
  }
  /** @param {string} table @param {number} fromMs @param {number} spanMs */
  const hold = (table, fromMs, spanMs) =>
    db.query(
      `INSERT INTO ${table} (received_at, app_guid, app_name, app_index, method, path, status, response_time_ms,
                             gorouter_time_ms, vcap_request_id, correlation_id)
       SELECT to_timestamp($1 / 1000.0 + k * ($2 / 1000.0) / $3), 'guid-shop', 'shop', k % 4, 'GET',
              '/api/items/' || (k % 100), 200, 1, 0.1, 'v' || k, k || '-held'
       FROM generate_series(0, $3 - 1) k`,
      [fromMs, spanMs, HELD_ROWS],
    );
  await hold(TABLES.among, today, DAY_MS);
  await hold(TABLES.after, today, HOUR_MS);
  await db.query('VACUUM ANALYZE');
  /** @type {Record<string, number[]>} */
  const rates = { empty: [], among: [], after: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['empty', 'among', 'after'] : ['after', 'among', 'empty'];
    for (const name of order) {
      const spec = { ...TABLE_OF_KIND.router_request, table: TABLES[/** @type {keyof typeof TABLES} */ (name)] };
      const records = makeRequests(COPY_ROWS, today + HOUR_MS, HOUR_MS, `${name} ${round}`).map(routerRecord);
      const started = performance.now();
      for (let i = 0; i < records.length; i += 5000) {
        const batch = binaryRows(spec, records.slice(i, i + 5000));
        await inTransaction(db.pool, (c) => copyInsert(c, spec, /** @type {any} */ (batch), { readBack: false }));
      }
      rates[name].push(records.length / ((performance.now() - started) / 1000));
    }
  }
  for (const name of ['among', 'after']) {
    const ratios = rates[name].map((rate, i) => rate / rates.empty[i]);
    console.log(
      `${name === 'among' ? 'among held rows of the whole day' : 'after held rows of the hour before'}: ` +
        `median ${middle(rates[name]).toFixed(0)} rows/s against ${middle(rates.empty).toFixed(0)} into the ` +
        `empty table; ratio ${middle(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-` +
        `${Math.max(...ratios).toFixed(2)})`,
    );
  }
} finally {
  await db.stop();
}
