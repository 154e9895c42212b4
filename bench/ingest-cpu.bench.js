// paasmon's own CPU per router-log document, in process: page bytes from a search server that only
// serves pages (bench/support/fake-search-server.js, a process of its own) -> the router-log source
// -> COPY rows encoded as `paasmon ingest` encodes them. No PostgreSQL, no real search server: what
// is measured is paasmon's share alone, with process.cpuUsage, robust to a shared machine's load.
// Each read runs in a child with the binary's heap flags; with BENCH_BEFORE_DIR (another checkout),
// its reads and this checkout's alternate, in one run. Each child also measures the floor of its read:
// the same pages received over HTTP and JSON.parse'd, nothing else.
// Run: npm run bench -- ingest-cpu   (BENCH_DOCS documents, BENCH_ROUNDS rounds of BENCH_READS reads)
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const READS = Number(process.env.BENCH_READS ?? 3);
const here = fileURLToPath(new URL('..', import.meta.url));
const child = fileURLToPath(new URL('./support/ingest-cpu-child.js', import.meta.url));
// The heap flags of the paasmon binary's shebang.
const shebang = readFileSync(new URL('../collector/cli.js', import.meta.url), 'utf8').split('\n')[0];
const heapFlags = shebang.split(/\s+/).filter((flag) => flag.startsWith('--'));

const server = spawn(
  process.execPath,
  [fileURLToPath(new URL('./support/fake-search-server.js', import.meta.url)), String(DOCS)],
  {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  },
);
try {
  const port = await new Promise((resolve, reject) => {
    server.stdout?.once('data', (d) => resolve(String(d).trim()));
    server.once('exit', (code) => reject(new Error(`fake search server exited ${code}`)));
  });
  /** @type {Array<[string, string]>} */
  const builds = [['after', here]];
  if (process.env.BENCH_BEFORE_DIR) builds.unshift(['before', process.env.BENCH_BEFORE_DIR]);
  /** @type {Record<string, number[]>} */
  const figures = {};
  /** @type {Record<string, number[]>} the same pages received and JSON.parse'd alone, per build's page sizes */
  const floors = {};
  /** @type {Record<string, number>} */
  const rss = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, dir] of builds) {
      const out = execFileSync(process.execPath, [...heapFlags, child, dir, String(port), String(READS)], {
        encoding: 'utf8',
      });
      const { perRead, floorPerRead, rssMb } = JSON.parse(out);
      // The first read of a process includes compiling the code: the later ones are what a long read is.
      (figures[label] ??= []).push(...perRead.slice(READS > 1 ? 1 : 0));
      (floors[label] ??= []).push(...floorPerRead.slice(READS > 1 ? 1 : 0));
      rss[label] = Math.max(rss[label] ?? 0, rssMb);
    }
  }
  const median = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`${DOCS} documents a read (half logsearch, half raw lines), ${ROUNDS} rounds of ${READS} reads`);
  for (const [label] of builds) {
    const values = figures[label];
    console.log(
      `${label.padEnd(7)} paasmon CPU per document: median ${median(values).toFixed(2)} us, ` +
        `min ${Math.min(...values).toFixed(2)} us (${values.map((v) => v.toFixed(1)).join(' ')}), ` +
        `peak RSS ${rss[label].toFixed(0)} MB`,
    );
    const floor = median(floors[label]);
    console.log(
      `${label.padEnd(7)} floor, its pages received over HTTP and JSON.parse'd, nothing else: ` +
        `median ${floor.toFixed(2)} us; paasmon above it ${(median(values) - floor).toFixed(2)} us`,
    );
  }
  // Issue 30 goal 1: at most half the CPU per document of the before build (b0f1632), measured in the same run.
  if (figures.before) {
    const [after, before] = [median(figures.after), median(figures.before)];
    console.log(
      `CPU per document vs half of the before build: ${after.toFixed(2)} us vs ${(before / 2).toFixed(2)} us, ` +
        `after / before = ${(after / before).toFixed(2)} (goal <= 0.50: ${after <= before / 2 ? 'met' : 'not met'})`,
    );
    const floor = median(floors.after);
    console.log(
      `half the before build is ${(before / 2 / floor).toFixed(2)} x the floor of the after build's pages: ` +
        `${(before / 2 - floor).toFixed(2)} us a document left for mapping, line parsing and encoding`,
    );
  }
} finally {
  server.kill('SIGTERM');
}
