// paasmon compare: (1) the false-positive rate of the gate, comparing one setting with itself many
// times (in memory: rounds of autocorrelated requests with their layers, a run-to-run spread of
// each round's level), at the default thresholds; the goal is at most 5 % `regressed`.
// (2) compare of two runs of BENCH_BIG_REQUESTS requests with router records and instance samples
// (its data computed in PostgreSQL, then the statistics) next to a bare percentile_cont over the
// same rows; the goal is at most 3 x.
// Run: npm run bench -- compare   (BENCH_COMPARISONS=100, BENCH_ROUNDS=5, BENCH_SPREAD=0.02: the
// rounds' level spread, ±; BENCH_BIG_REQUESTS=1000000, 0 to skip part 2; BENCH_REPEAT=3)
import pino from 'pino';
import { loadCompareData } from '../exporters/postgres/queries/compare.js';
import { migrate } from '../exporters/postgres/schema/migrate.js';
import { buildCompare } from '../report/compare/index.js';
import { side } from '../test/support/compare-data.js';
import { startTestDatabase } from '../test/support/database.js';
import { seedRun } from '../test/support/report-runs.js';
import { medianMs } from './support/median.js';

const COMPARISONS = Number(process.env.BENCH_COMPARISONS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SPREAD = Number(process.env.BENCH_SPREAD ?? 0.02);
const BIG = Number(process.env.BENCH_BIG_REQUESTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

if (COMPARISONS > 0) falsePositives();

/** Prints the verdicts of COMPARISONS comparisons of one setting against itself. */
function falsePositives() {
  /** @type {Record<string, number>} */
  const verdicts = {};
  const started = performance.now();
  for (let i = 0; i < COMPARISONS; i++) {
    const baseline = side({ firstId: 1, rounds: ROUNDS, seed: 1000 + 2 * i, spread: SPREAD, requests: 3000 });
    const candidate = side({ firstId: 100, rounds: ROUNDS, seed: 1001 + 2 * i, spread: SPREAD, requests: 3000 });
    const { verdict } = buildCompare({ baseline, candidate }, { seed: 1 + i });
    verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
  }
  const share = (/** @type {string} */ v) => `${((100 * (verdicts[v] ?? 0)) / COMPARISONS).toFixed(1)} %`;
  console.log(
    `one setting against itself, ${COMPARISONS} comparisons of ${ROUNDS} + ${ROUNDS} rounds (level spread ±${
      100 * SPREAD
    } %): regressed ${share('regressed')} (goal <= 5 %), improved ${share('improved')}, unchanged ${share(
      'unchanged',
    )}, inconclusive ${share('inconclusive')}; ${((performance.now() - started) / COMPARISONS).toFixed(0)} ms each`,
  );
}

if (BIG > 0) {
  const db = await startTestDatabase({ bulk: true });
  try {
    await migrate(db.pool, pino({ level: 'silent' }));
    const seeded = performance.now();
    const runs = [];
    for (const [k, slow] of [0, 0.5].entries()) {
      runs.push(
        await seedRun(db.query, {
          label: 'big',
          app: 'shop',
          instances: 2,
          coresPerInstance: 1,
          parallel: 64,
          start: new Date(Date.parse('2026-03-01T08:00:00Z') + k * 3_600_000),
          spanS: 600,
          successful: BIG,
          durationSql: `${5 + slow} + (i % 97) * 0.1 + (i % 13) * 0.01`,
          cpuPolls: [150, 160, 155],
        }),
      );
    }
    await db.query('ANALYZE');
    console.log(`2 runs of ${BIG} requests seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);
    const ids = `{${runs.join(',')}}`;
    const bare = () =>
      db.query(
        `SELECT run_id, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms)
         FROM loadgen_requests WHERE run_id = ANY ($1::bigint[]) GROUP BY run_id`,
        [ids],
      );
    const bareMs = await medianMs(bare, REPEAT);
    const dataMs = await medianMs(() => loadCompareData(db.pool, runs, { trim: 0.1 }), REPEAT);
    const data = await loadCompareData(db.pool, runs, { trim: 0.1 });
    const statsMs = await medianMs(async () => {
      const [b, c] = runs.map((id) => /** @type {import('../report/compare/rounds.js').RunData} */ (data.get(id)));
      buildCompare({ baseline: [b], candidate: [c] }, { seed: 1 });
    }, REPEAT);
    const total = dataMs + statsMs;
    console.log(
      `compare of 2 x ${BIG} requests: data ${dataMs.toFixed(0)} ms + statistics ${statsMs.toFixed(0)} ms = ` +
        `${total.toFixed(0)} ms; bare percentile_cont over the same rows ${bareMs.toFixed(0)} ms: ` +
        `${(total / bareMs).toFixed(2)} x (goal <= 3 x)`,
    );
  } finally {
    await db.stop();
  }
}
