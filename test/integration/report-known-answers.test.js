// Known answers: runs built from the inputs of the thesis's tables 7.1 and 7.2
// (../shared/seeds/000_*.txt, chapter 7) must give its printed values, which it truncates.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { runSqlQuery } from '../../exporters/postgres/queries/report.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

// Table 7.2 (CPU %, successful requests in a one-minute run, normalised value) and table 7.1
// (peak CPU %, capacity %, utilised %) per row. Table 7.1's two middle headers are swapped in the
// seed ("Available" holds the measured peak, "Maximum" the capacity): the numbers decide.
const ROWS = [
  {
    impl: 'java',
    instances: 1,
    cores: 4,
    cpu: 196,
    successful: 260701,
    normalised: 1330,
    peak: 229,
    capacity: 400,
    utilised: 57,
  },
  {
    impl: 'java',
    instances: 2,
    cores: 4,
    cpu: 299,
    successful: 410399,
    normalised: 1372,
    peak: 361,
    capacity: 800,
    utilised: 45,
  },
  {
    impl: 'java',
    instances: 3,
    cores: 4,
    cpu: 373,
    successful: 525698,
    normalised: 1409,
    peak: 429,
    capacity: 1200,
    utilised: 35,
  },
  // The thesis prints 1070 here, which its own inputs do not give (89943 / 83 = 1083.6): the
  // formula is tested, not the typo.
  {
    impl: 'nodejs',
    instances: 1,
    cores: 1,
    cpu: 83,
    successful: 89943,
    normalised: 1083,
    peak: 103,
    capacity: 100,
    utilised: 103,
  },
  {
    impl: 'nodejs',
    instances: 2,
    cores: 1,
    cpu: 173,
    successful: 224948,
    normalised: 1300,
    peak: 198,
    capacity: 200,
    utilised: 99,
  },
  {
    impl: 'nodejs',
    instances: 3,
    cores: 1,
    cpu: 267,
    successful: 303474,
    normalised: 1136,
    peak: 291,
    capacity: 300,
    utilised: 97,
  },
  {
    impl: 'nodejs',
    instances: 4,
    cores: 1,
    cpu: 338,
    successful: 397007,
    normalised: 1174,
    peak: 384,
    capacity: 400,
    utilised: 96,
  },
  {
    impl: 'nodejs',
    instances: 5,
    cores: 1,
    cpu: 421,
    successful: 501403,
    normalised: 1190,
    peak: 471,
    capacity: 500,
    utilised: 94,
  },
];

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number[]} */
const runIds = [];

before(async () => {
  db = await startTestDatabase({ bulk: true });
  await migrate(db.pool, pino({ level: 'silent' }));
  const base = Date.parse('2017-06-01T09:00:00Z');
  for (const [i, row] of ROWS.entries()) {
    // One minute of requests; the polls alternate between the peak and 2 x mean - peak, so that
    // their mean is the table's CPU and their maximum table 7.1's peak. A few errors that must not
    // count as throughput.
    runIds.push(
      await seedRun(db.query, {
        label: `${row.impl} ${row.instances}`,
        app: `${row.impl}-${row.instances}`,
        implementation: row.impl,
        instances: row.instances,
        coresPerInstance: row.cores,
        start: new Date(base + i * 3_600_000),
        spanS: 60,
        successful: row.successful,
        serverErrors: 500,
        timeouts: 100,
        router: false,
        cpuPolls: [row.peak, 2 * row.cpu - row.peak],
      }),
    );
  }
  await db.query('ANALYZE');
});

after(async () => {
  await db?.stop();
});

test('table 7.2: successful requests per minute per CPU % (the whole one-minute run)', async () => {
  const rows = await runSqlQuery(db.pool, 'cpu_efficiency', { runs: `{${runIds.join(',')}}`, trim: 0 });
  const byRun = new Map(rows.map((r) => [Number(r.run_id), r]));
  ROWS.forEach((expected, i) => {
    const row = byRun.get(runIds[i]);
    assert.equal(row.successful, expected.successful);
    assert.equal(Math.round(row.throughput_rpm * 1e6) / 1e6, expected.successful, 'a one-minute window');
    assert.equal(row.cpu_percent_avg, expected.cpu);
    assert.equal(Math.trunc(row.rpm_per_cpu_percent), expected.normalised, `${expected.impl} ${expected.instances}`);
  });
});

test('table 7.1: peak CPU of the instances against their capacity (steady window as by default)', async () => {
  const rows = await runSqlQuery(db.pool, 'cpu_utilisation', { runs: `{${runIds.join(',')}}`, trim: 0.1 });
  const byRun = new Map(rows.map((r) => [Number(r.run_id), r]));
  ROWS.forEach((expected, i) => {
    const row = byRun.get(runIds[i]);
    assert.equal(row.cpu_percent_peak, expected.peak);
    assert.equal(row.cpu_capacity_percent, expected.capacity);
    assert.equal(Math.trunc(row.cpu_utilization_percent), expected.utilised, `${expected.impl} ${expected.instances}`);
  });
});
