// An app's CPU and memory summed over its instances, whether each instance reports at its own
// times (Log Cache) or all on one shared poll (the Cloud Controller): app_usage(), run_comparison()
// and run_summary must give the sum of the instances, not the figure of one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const MIB = 1024 * 1024;
const START = Date.parse('2026-07-01T10:00:00Z');
const SPAN_S = 300;
const EVERY_S = 15;
// Per instance: CPU % of one core (it varies by report: + 0, 1, 2, 3), memory MiB, first report
// (s after the run's start, so the instances never share a timestamp).
const INSTANCES = [
  { cpu: 30, mib: 100, offsetS: 0.25 },
  { cpu: 50, mib: 200, offsetS: 5.5 },
  { cpu: 70, mib: 300, offsetS: 10.75 },
];

/**
 * @typedef {{ index: number, t: number, cpu: number | null, mem: number | null, state?: string,
 *   repeated?: boolean }} Sample
 *   t: seconds after START
 */

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(() => db?.stop());

/** @param {string} app @param {Sample[]} samples */
async function insertSamples(app, samples) {
  await db.query(
    `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes,
      repeated)
    SELECT $1::timestamptz + s.t * interval '1 second', 'guid-' || $2, $2, 'web', s.index, s.state, s.cpu, s.mem,
      s.repeated
    FROM json_to_recordset($3::json)
      AS s(index int, t double precision, state text, cpu double precision, mem bigint, repeated boolean)`,
    [new Date(START), app, JSON.stringify(samples.map((s) => ({ state: 'RUNNING', ...s })))],
  );
}

/**
 * Every instance reporting every EVERY_S s at its own offset, from a minute before the run to a
 * minute after it; instance 2 only until `stopS`.
 * @param {{ stopS?: number }} [options] @returns {Sample[]}
 */
function unalignedReports(options = {}) {
  /** @type {Sample[]} */
  const samples = [];
  for (const [index, instance] of INSTANCES.entries()) {
    for (let k = 0, t = instance.offsetS - 60; t < SPAN_S + 60; k++, t += EVERY_S) {
      if (index === 2 && options.stopS !== undefined && t > options.stopS) break;
      samples.push({ index, t, cpu: instance.cpu + (k % 4), mem: instance.mib * MIB });
    }
  }
  return samples;
}

/**
 * The sums by the definition, computed here: at each moment (a report with CPU inside
 * [fromS, toS]), each instance's latest report at or before it that is at most `maxAgeS` old.
 * @param {Sample[]} samples @param {number} fromS @param {number} toS @param {number} maxAgeS
 */
function expectedUsage(samples, fromS, toS, maxAgeS) {
  const moments = [...new Set(samples.filter((s) => s.cpu !== null && s.t >= fromS && s.t <= toS).map((s) => s.t))];
  return moments
    .sort((a, b) => a - b)
    .map((t) => {
      let cpu = 0;
      let instances = 0;
      for (const index of new Set(samples.map((s) => s.index))) {
        const latest = samples
          .filter((s) => s.index === index && s.t <= t && s.t >= t - maxAgeS)
          .sort((a, b) => b.t - a.t)[0];
        if (latest?.cpu != null) {
          cpu += latest.cpu;
          instances += 1;
        }
      }
      return { t, instances, cpu };
    });
}

/** app_usage over [fromS, toS] of START, t in seconds, ordered. @param {string} app */
async function usage(app, fromS = 0, toS = SPAN_S) {
  const { rows } = await db.query(
    `SELECT round(extract(epoch FROM u.ts - $2::timestamptz)::numeric, 3)::double precision AS t,
      u.instances::int, u.cpu_percent AS cpu, u.mem_bytes AS mem
    FROM app_usage($1, $2::timestamptz + $3 * interval '1 second', $2::timestamptz + $4 * interval '1 second') u
    ORDER BY u.ts`,
    [app, new Date(START), fromS, toS],
  );
  return rows;
}

/** @param {Array<{ t: number, instances: number, cpu: number }>} rows */
const withoutMem = (rows) => rows.map(({ t, instances, cpu }) => ({ t, instances, cpu }));

test('instances reporting at their own times are summed: the app CPU is theirs together', async () => {
  const samples = unalignedReports();
  const runId = await seedRun(db.query, {
    label: 'unaligned',
    app: 'unaligned',
    instances: 3,
    coresPerInstance: 1,
    start: new Date(START),
    spanS: SPAN_S,
    successful: 300,
    router: false,
  });
  await insertSamples('unaligned', samples);
  const expected = expectedUsage(samples, 30, 270, 2 * EVERY_S);
  assert.equal(expected.length, 48);
  assert.deepEqual(withoutMem(await usage('unaligned', 30, 270)), expected);
  // Each moment sees all three (a 30 %, 50 % and 70 % instance, + 0..3 each): never one alone.
  assert.ok(expected.every((m) => m.instances === 3 && m.cpu >= 150 && m.cpu <= 159));

  const {
    rows: [c],
  } = await db.query(`SELECT * FROM run_comparison($1::bigint[], 0.1)`, [`{${runId}}`]);
  const mean = expected.reduce((sum, m) => sum + m.cpu, 0) / expected.length;
  assert.ok(Math.abs(c.cpu_percent_avg - mean) < 1e-9, `${c.cpu_percent_avg} vs ${mean}`);
  assert.equal(c.cpu_percent_peak, Math.max(...expected.map((m) => m.cpu)));
  assert.equal(c.cpu_polls, expected.length);
  assert.equal(c.mem_bytes_avg, 600 * MIB);
  const {
    rows: [s],
  } = await db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]);
  const whole = expectedUsage(samples, 0, SPAN_S, 2 * EVERY_S);
  assert.ok(Math.abs(s.cpu_percent_avg - whole.reduce((sum, m) => sum + m.cpu, 0) / whole.length) < 1e-9);
  assert.equal(Number(s.mem_bytes_avg), 600 * MIB);
});

test('an instance that stops reporting drops out after twice its usual interval', async () => {
  const samples = unalignedReports({ stopS: 150 });
  await insertSamples('stops', samples);
  const rows = await usage('stops');
  assert.deepEqual(withoutMem(rows), expectedUsage(samples, 0, SPAN_S, 2 * EVERY_S));
  const lastReport = 10.75 + 9 * EVERY_S;
  assert.ok(rows.some((r) => r.t <= lastReport && r.instances === 3));
  const gone = rows.filter((r) => r.t > lastReport + 2 * EVERY_S);
  assert.ok(gone.length > 10 && gone.every((r) => r.instances === 2 && r.mem === 300 * MIB));
});

test('a report of an instance not running counts as nothing from then on, its memory too', async () => {
  /** @type {Sample[]} */
  const samples = [
    ...unalignedReports({ stopS: 150 }),
    { index: 2, t: 160, cpu: null, mem: 64 * MIB, state: 'CRASHED' },
  ];
  await insertSamples('crashes', samples);
  const after = (await usage('crashes')).filter((r) => r.t > 160);
  assert.ok(after.length > 10);
  assert.deepEqual(new Set(after.map((r) => `${r.instances} ${r.mem}`)), new Set([`2 ${300 * MIB}`]));
});

test('a sample without CPU of a running instance (Log Cache cpu_entitlement) hides nothing', async () => {
  const reports = unalignedReports();
  // The entitlement gauge in its own envelope, 7 ms after each cpu gauge.
  const entitlements = reports.map((s) => ({ index: s.index, t: s.t + 0.007, cpu: null, mem: null }));
  await insertSamples('split-gauges', [...reports, ...entitlements]);
  assert.deepEqual(withoutMem(await usage('split-gauges')), expectedUsage(reports, 0, SPAN_S, 2 * EVERY_S));
});

test('a window shorter than the reporting interval still sums every instance', async () => {
  const samples = unalignedReports();
  await insertSamples('short', samples);
  const rows = await usage('short', 36, 44);
  assert.equal(rows.length, 1, 'one report inside the window');
  assert.deepEqual(withoutMem(rows), expectedUsage(samples, 36, 44, 2 * EVERY_S));
  assert.equal(rows[0].instances, 3);
});

test('aligned polls: per poll the sum of that poll, and an instance gone from the polls is gone at once', async () => {
  /** @type {Sample[]} */
  const samples = [];
  for (let k = 0, t = 0; t <= SPAN_S; k++, t += 5) {
    for (const [index, instance] of INSTANCES.entries()) {
      if (index === 2 && t > 100) continue; // scaled down
      samples.push({ index, t, cpu: instance.cpu + (k % 5), mem: instance.mib * MIB });
    }
  }
  await insertSamples('polled', samples);
  const rows = await usage('polled');
  const perPoll = [...new Set(samples.map((s) => s.t))].map((t) => {
    const poll = samples.filter((s) => s.t === t);
    return { t, instances: poll.length, cpu: poll.reduce((sum, s) => sum + (s.cpu ?? 0), 0) };
  });
  assert.deepEqual(withoutMem(rows), perPoll);
  assert.equal(rows.find((r) => r.t === 105)?.instances, 2);
});

test('polls faster than the platform measures: each reading weighs once, whatever the polls that repeat it', async () => {
  // Polls every second; instance 0 measured every 4 s from 0, instance 1 every 4 s from 2; between two
  // measurements a poll answers the previous reading again (repeated). Instance 1 is gone after 20 s.
  /** @type {Sample[]} */
  const samples = [];
  for (let t = 0; t <= 30; t++) {
    for (const [index, { cpu, mib }] of INSTANCES.slice(0, 2).entries()) {
      if (index === 1 && t > 20) continue;
      const measuredAt = index === 0 ? t - (t % 4) : Math.max(0, t - ((t + 2) % 4));
      samples.push({ index, t, cpu: cpu + measuredAt, mem: mib * MIB, repeated: measuredAt !== t || undefined });
    }
  }
  await insertSamples('repeats', samples);
  const rows = await usage('repeats', 0, 30);
  // By the definition: a moment per poll that brought a new reading; each instance in that poll with the
  // reading the poll answered.
  const moments = [...new Set(samples.filter((s) => !s.repeated).map((s) => s.t))].sort((a, b) => a - b);
  const expected = moments.map((t) => {
    const poll = samples.filter((s) => s.t === t);
    return { t, instances: poll.length, cpu: poll.reduce((sum, s) => sum + (s.cpu ?? 0), 0) };
  });
  assert.deepEqual(withoutMem(rows), expected);
  assert.deepEqual(moments.slice(0, 6), [0, 2, 4, 6, 8, 10], 'one moment per new reading, not one per poll (31 polls)');
  // A window opening between readings starts with the readings current then (its first poll).
  const late = await usage('repeats', 1, 3);
  const expectedLate = [1, 2].map((t) => {
    const poll = samples.filter((s) => s.t === t);
    return { t, instances: 2, cpu: poll.reduce((sum, s) => sum + (s.cpu ?? 0), 0) };
  });
  assert.deepEqual(withoutMem(late), expectedLate);
});
