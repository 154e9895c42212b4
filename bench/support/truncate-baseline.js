// A bare baseline for dropping partitions: the kernel giving back files of the sizes of the dropped
// relations (each table, index and TOAST file), written into the page cache block by block as
// PostgreSQL writes them.
// At commit, PostgreSQL truncates each dropped relation's file to nothing and unlinks it later.
// Done serially (as one transaction's commit does) and split by parent table, each part in a
// process of its own at the same time (as one transaction per parent table would).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFromCache } from './page-cache.js';

/**
 * The byte size of each relation making up `partitions` (the tables, their indexes and TOAST
 * tables), with the parent table of the partition it belongs to.
 * @param {{ query: (sql: string, params?: unknown[]) => Promise<{ rows: any[] }> }} db
 * @param {string[]} partitions
 * @returns {Promise<Array<{ parent: string, bytes: number }>>}
 */
export async function relationSizes(db, partitions) {
  const { rows } = await db.query(
    `WITH t AS (SELECT p::regclass::oid AS oid, i.inhparent::regclass::text AS parent
                FROM unnest($1::text[]) p JOIN pg_inherits i ON i.inhrelid = p::regclass::oid),
          r AS (SELECT oid, parent FROM t
                UNION ALL SELECT indexrelid, t.parent FROM pg_index JOIN t ON indrelid = t.oid
                UNION ALL SELECT c.reltoastrelid, t.parent FROM pg_class c JOIN t ON c.oid = t.oid
                WHERE c.reltoastrelid <> 0)
     SELECT parent, pg_relation_size(oid) AS bytes FROM r`,
    [partitions],
  );
  return rows.map((row) => ({ parent: String(row.parent), bytes: Number(row.bytes) }));
}

/** Says `ready`, truncates the files named in argv[1] (JSON) once told to on stdin, prints when it began and ended. */
const TRUNCATE_CHILD =
  "const fs = require('node:fs'); const files = JSON.parse(process.argv[1]);" +
  "const at = () => performance.timeOrigin + performance.now(); process.stdout.write('ready\\n');" +
  "process.stdin.once('data', () => { const began = at(); for (const file of files) fs.truncateSync(file, 0);" +
  'process.stdout.write(JSON.stringify([began, at()]) + "\\n"); process.exit(0); });';

/**
 * Truncates each group of files in a process of its own, all started at once when every process is
 * ready (their start-up not timed).
 * @param {string[][]} groups @returns {Promise<{ ms: number, each: number[] }>} from the first
 *   process's start to the last one's end, and each process's own time, ms
 */
async function truncateInProcesses(groups) {
  const children = groups.map((files) =>
    spawn(process.execPath, ['-e', TRUNCATE_CHILD, JSON.stringify(files)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = children.map((child) => {
    /** @type {Array<(line: string) => void>} */
    const waiting = [];
    let buffered = '';
    child.stdout.on('data', (d) => {
      buffered += d;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        waiting.shift()?.(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    });
    return () => new Promise((resolve) => waiting.push(resolve));
  });
  const firstLines = lines.map((next) => next());
  await Promise.all(firstLines);
  const spans = lines.map((next) => next().then((line) => /** @type {number[]} */ (JSON.parse(line))));
  for (const child of children) child.stdin.write('go\n');
  const done = await Promise.all(spans);
  return {
    ms: Math.max(...done.map((s) => s[1])) - Math.min(...done.map((s) => s[0])),
    each: done.map((s) => s[1] - s[0]),
  };
}

/**
 * Writes a file of each size in `dir`, then times truncating them all to nothing; the files are
 * removed afterwards. cached: false writes them out and gives their pages back to the kernel first.
 * byParent: the files of each parent table truncated by a process of their own, all at once.
 * @param {string} dir @param {Array<{ parent: string, bytes: number }>} relations
 * @param {{ cached?: boolean, byParent?: boolean }} [options]
 * @returns {Promise<{ ms: number, each?: number[], parents?: string[] }>} wall ms (byParent: and each
 *   parent's process's)
 */
export async function timeTruncate(dir, relations, { cached = true, byParent = false } = {}) {
  // In blocks of 8 KiB, as PostgreSQL writes its pages: the page cache then holds them as PostgreSQL's.
  const chunk = Buffer.alloc(8192, 1);
  const files = relations.map(({ bytes }, i) => {
    const file = path.join(dir, `relation-${i}`);
    const fd = fs.openSync(file, 'w');
    for (let left = bytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    fs.closeSync(fd);
    return file;
  });
  if (!cached) dropFromCache(files);
  try {
    if (byParent) {
      const parents = [...new Set(relations.map((r) => r.parent))];
      const timed = await truncateInProcesses(parents.map((p) => files.filter((_, i) => relations[i].parent === p)));
      return { ...timed, parents };
    }
    const started = performance.now();
    for (const file of files) fs.truncateSync(file, 0);
    return { ms: performance.now() - started };
  } finally {
    for (const file of files) fs.rmSync(file, { force: true });
  }
}
