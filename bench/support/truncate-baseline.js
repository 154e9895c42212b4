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

/** Truncates the files named in argv[1] (JSON), prints how long it took, ms. */
const TRUNCATE_CHILD =
  "const fs = require('node:fs'); const started = performance.now();" +
  'for (const file of JSON.parse(process.argv[1])) fs.truncateSync(file, 0);' +
  'console.log(performance.now() - started);';

/**
 * Truncates each group of files in a process of its own, all at once.
 * @param {string[][]} groups @returns {Promise<{ ms: number, each: number[] }>} wall ms, and each process's
 */
async function truncateInProcesses(groups) {
  const started = performance.now();
  const each = await Promise.all(
    groups.map(
      (files) =>
        new Promise((resolve, reject) => {
          let out = '';
          const child = spawn(process.execPath, ['-e', TRUNCATE_CHILD, JSON.stringify(files)], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          child.stdout.on('data', (d) => {
            out += d;
          });
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`truncate exit ${code}`))));
        }),
    ),
  );
  return { ms: performance.now() - started, each: /** @type {number[]} */ (each) };
}

/**
 * Writes a file of each size in `dir`, then times truncating them all to nothing; the files are
 * removed afterwards. cached: false writes them out and gives their pages back to the kernel first.
 * byParent: the files of each parent table truncated by a process of their own, all at once.
 * @param {string} dir @param {Array<{ parent: string, bytes: number }>} relations
 * @param {{ cached?: boolean, byParent?: boolean }} [options]
 * @returns {Promise<{ ms: number, each?: number[] }>} wall ms (byParent: and each process's)
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
      return await truncateInProcesses(parents.map((p) => files.filter((_, i) => relations[i].parent === p)));
    }
    const started = performance.now();
    for (const file of files) fs.truncateSync(file, 0);
    return { ms: performance.now() - started };
  } finally {
    for (const file of files) fs.rmSync(file, { force: true });
  }
}
