// The parsers under 10^6 generated inputs (fast-check): valid gorouter lines and search documents
// must parse to the values they were generated from; mutated, truncated, hostile-unicode, huge and
// arbitrary ones must never crash. Prints the count per class; exits 1 at the first failure, with
// fast-check's shrunk counterexample and seed. Run: npm run bench -- fuzz   (BENCH_FUZZ_RUNS, BENCH_FUZZ_SEED)
import { runFuzz } from '../test/support/fuzz-cases.js';

const TOTAL = Number(process.env.BENCH_FUZZ_RUNS ?? 1_000_000);
const SEED = process.env.BENCH_FUZZ_SEED ? Number(process.env.BENCH_FUZZ_SEED) : Date.now() % 2 ** 31;

console.log(`fuzz: ${TOTAL.toLocaleString('en')} generated inputs, seed ${SEED}`);
const started = performance.now();
try {
  const { runs, counts } = runFuzz(TOTAL, {
    seed: SEED,
    onClass: (name, n, ms) =>
      console.log(`  ${String(n.toLocaleString('en')).padStart(9)}  ${name}: 0 failures (${(ms / 1000).toFixed(1)} s)`),
  });
  for (const [what, n] of counts) console.log(`  ${String(n.toLocaleString('en')).padStart(9)}  ${what}`);
  console.log(
    `fuzz: ${runs.toLocaleString('en')} inputs, 0 crashes, every valid record exact ` +
      `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
} catch (err) {
  console.error(`fuzz: FAILED (seed ${SEED})\n${/** @type {Error} */ (err).message}`);
  process.exit(1);
}
