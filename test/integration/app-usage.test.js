// An app's CPU and memory summed over its instances when each instance reports at its own times
// (Log Cache), not on one shared poll (the Cloud Controller): app_usage(), run_comparison() and
// run_summary must give the sum of the instances, not the figure of one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const MIB = 1024 * 1024;
const START = Date.parse('2026-07-01T10:00:00Z');
const SPAN_S = 300;
const EVERY_S = 15;
// Per instance: CPU % of one core, memory MiB, first report (s after the run's start, so the
// instances never share a timestamp).
const INSTANCES = [
  { cpu: 30, mib: 100, offsetS: 0.25 },
  { cpu: 50, mib: 200, offsetS: 5.5 },
  { cpu: 70, mib: 300, offsetS: 10.75 },
];

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(() => db?.stop());

/**
 * A run of SPAN_S seconds of app `app`, its instances reporting every EVERY_S seconds from a
 * minute before the run to a minute after it, instance 2 until `stopS` (s after the start) only.
 * @param {string} app @param {{ stopS?: number, crashedSampleS?: number }} [options] crashedSampleS:
 *   instance 2's last report is one without numbers (CRASHED) at that time
 */
async function runWithUnalignedSamples(app, options = {}) {
  const runId = await seedRun(db.query, {
    label: app,
    app,
    instances: 3,
    coresPerInstance: 1,
    start: new Date(START),
    spanS: SPAN_S,
    successful: 300,
    router: false,
  });
  const rows = [];
  for (const [index, instance] of INSTANCES.entries()) {
    for (let t = instance.offsetS - 60; t < SPAN_S + 60; t += EVERY_S) {
      if (index === 2 && options.stopS !== undefined && t > options.stopS) break;
      rows.push([index, new Date(START + t * 1000), instance.cpu, instance.mib * MIB, 'RUNNING']);
    }
  }
  if (options.crashedSampleS !== undefined) {
    rows.push([2, new Date(START + options.crashedSampleS * 1000), null, null, 'CRASHED']);
  }
  for (const [index, ts, cpu, mem, state] of rows) {
    await db.query(
      `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes)
      VALUES ($1, 'guid-' || $2, $2, 'web', $3, $4, $5, $6)`,
      [ts, app, index, state, cpu, mem],
    );
  }
  return runId;
}

const ALL_CPU = INSTANCES.reduce((sum, i) => sum + i.cpu, 0);
const ALL_MEM = INSTANCES.reduce((sum, i) => sum + i.mib * MIB, 0);

test('instances reporting at their own times are summed: the app CPU is theirs together', async () => {
  const runId = await runWithUnalignedSamples('unaligned');
  const {
    rows: [c],
  } = await db.query(`SELECT * FROM run_comparison($1::bigint[], 0.1)`, [`{${runId}}`]);
  // Every moment in the window sees all three instances' latest reports.
  assert.equal(c.cpu_percent_avg, ALL_CPU);
  assert.equal(c.cpu_percent_peak, ALL_CPU);
  assert.equal(c.mem_bytes_avg, ALL_MEM);
  assert.equal(c.cpu_utilization_percent, (100 * ALL_CPU) / 300);
  // One moment per report inside the window (240 s of it, every instance every 15 s).
  const inWindow = INSTANCES.map((i) => {
    let n = 0;
    for (let t = i.offsetS - 60; t < SPAN_S + 60; t += EVERY_S) if (t >= 30 && t <= 270) n++;
    return n;
  });
  assert.equal(
    c.cpu_polls,
    inWindow.reduce((a, b) => a + b),
  );
  const {
    rows: [s],
  } = await db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]);
  assert.equal(s.cpu_percent_avg, ALL_CPU);
  assert.equal(s.cpu_percent_peak, ALL_CPU);
  assert.equal(Number(s.mem_bytes_avg), ALL_MEM);
});

test('an instance that stops reporting drops out after twice the usual interval', async () => {
  await runWithUnalignedSamples('stops', { stopS: 150 });
  const { rows } = await db.query(
    `SELECT extract(epoch FROM u.ts - $1::timestamptz)::double precision AS t, u.instances::int, u.cpu_percent
    FROM app_usage('stops', $1::timestamptz, $1::timestamptz + interval '300 seconds') u ORDER BY u.ts`,
    [new Date(START)],
  );
  const lastReport = 10.75 + 9 * EVERY_S; // instance 2's last report at or before 150 s
  const before = rows.filter((r) => r.t <= lastReport);
  const gone = rows.filter((r) => r.t > lastReport + 2 * EVERY_S);
  assert.ok(before.length > 10 && gone.length > 10, `${before.length} and ${gone.length} moments`);
  assert.deepEqual(new Set(before.map((r) => `${r.instances} ${r.cpu_percent}`)), new Set([`3 ${ALL_CPU}`]));
  assert.deepEqual(new Set(gone.map((r) => `${r.instances} ${r.cpu_percent}`)), new Set([`2 ${ALL_CPU - 70}`]));
});

test('a report without numbers (instance not running) counts as nothing from then on', async () => {
  await runWithUnalignedSamples('crashes', { stopS: 150, crashedSampleS: 160 });
  const { rows } = await db.query(
    `SELECT extract(epoch FROM u.ts - $1::timestamptz)::double precision AS t, u.instances::int, u.cpu_percent
    FROM app_usage('crashes', $1::timestamptz, $1::timestamptz + interval '300 seconds') u ORDER BY u.ts`,
    [new Date(START)],
  );
  const after = rows.filter((r) => r.t > 160);
  assert.ok(after.length > 10);
  assert.deepEqual(new Set(after.map((r) => `${r.instances} ${r.cpu_percent}`)), new Set([`2 ${ALL_CPU - 70}`]));
});
