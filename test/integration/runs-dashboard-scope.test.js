// The runs dashboard's PostgreSQL panels, as committed and with Grafana's macros expanded, compute the
// figures of the runs they show and of no other: each run's summary costs a pass over its requests, so a
// panel that computed every stored run at each refresh would slow down as runs pile up. Counted by
// PostgreSQL itself (track_functions: the calls of run_summary_request_figures, one per run summarised,
// its figures computed or read back).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { expandSql, loadDashboards, queriesOf } from '../support/grafana.js';
import { seedRun } from '../support/report-runs.js';

const DAY_MS = 86_400_000;
const FIRST = Date.parse('2026-05-01T08:00:00Z');
const queries = queriesOf(loadDashboards()['runs.json']).filter((q) => q.type === 'grafana-postgresql-datasource');

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number[]} one run a day */
const runs = [];

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  for (let day = 0; day < 6; day++) {
    runs.push(
      await seedRun(db.query, {
        label: `day ${day}`,
        app: 'shop',
        instances: 2,
        coresPerInstance: 1,
        parallel: 2 + day,
        start: new Date(FIRST + day * DAY_MS),
        spanS: 20,
        successful: 100 + 10 * day,
        serverErrors: 2,
        durationSql: '2 + (i % 10)',
        cpuPolls: [50, 70],
        pollS: 2,
      }),
    );
  }
});
after(() => db?.stop());

/**
 * Runs `sql` and counts the run summaries PostgreSQL computed for it.
 * @param {string} sql @returns {Promise<{ rows: any[], summaries: number }>}
 */
async function counted(sql) {
  const { result, added } = await countersAcross(
    db.pool,
    "SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_xact_user_functions WHERE funcname = 'run_summary_request_figures'",
    [],
    (client) => client.query(sql),
  );
  return { rows: result.rows, summaries: added.calls };
}

/** @param {string} where */
const queryAt = (where) => {
  const found = queries.find((q) => q.where === where);
  assert.ok(found, `no query ${where} in runs.json`);
  return found.text;
};

describe('the runs dashboard computes the figures of the runs it shows only', () => {
  it('"Runs" over a time range holding 2 of 6 runs: those 2, each as run_summary gives it', async () => {
    const sql = expandSql(queryAt('paasmon-runs panel "Runs" A'), {
      from: new Date(FIRST + 3.5 * DAY_MS),
      to: new Date(FIRST + 5.5 * DAY_MS),
      interval: '1m',
      variables: {},
    });
    const { rows, summaries } = await counted(sql);
    assert.deepEqual(
      rows.map((r) => Number(r.run_id)),
      [runs[5], runs[4]],
    );
    assert.equal(summaries, 2);
    for (const row of rows) {
      const { rows: alone } = await db.query('SELECT * FROM run_summary WHERE run_id = $1', [row.run_id]);
      for (const column of ['requests', 'error_ratio', 'throughput_rps', 'e2e_p95_ms', 'router_p95_ms'])
        assert.equal(row[column], alone[0][column], `${column} of run ${row.run_id}`);
    }
  });

  it('"Runs" over every day: all 6, each once', async () => {
    const sql = expandSql(queryAt('paasmon-runs panel "Runs" A'), {
      from: new Date(FIRST - DAY_MS),
      to: new Date(FIRST + 7 * DAY_MS),
      interval: '1m',
      variables: {},
    });
    const { rows, summaries } = await counted(sql);
    assert.equal(rows.length, 6);
    assert.equal(summaries, 6);
  });

  it('each panel on the runs picked in "run" computes those runs only', async () => {
    const picked = [String(runs[1]), String(runs[3])];
    const onPicked = queries.filter((q) => /\$\{?run\b/.test(q.text) && q.text.includes('run_summary'));
    assert.ok(onPicked.length >= 4, `panels on run_summary: ${onPicked.map((q) => q.where)}`);
    for (const q of onPicked) {
      const sql = expandSql(q.text, {
        from: new Date(FIRST - DAY_MS),
        to: new Date(FIRST + 7 * DAY_MS),
        interval: '1m',
        variables: { run: { values: picked, multi: true } },
      });
      const { summaries } = await counted(sql);
      assert.equal(summaries, 2, q.where);
    }
  });
});
