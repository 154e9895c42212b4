// A bare baseline for dropping partitions: the kernel giving back files of the sizes of the dropped
// relations (each table, index and TOAST file), written into the page cache block by block as
// PostgreSQL writes them.
// At commit, PostgreSQL truncates each dropped relation's file to nothing and unlinks it later.
import fs from 'node:fs';
import path from 'node:path';
import { dropFromCache } from './page-cache.js';

/**
 * The byte size of each relation making up `partitions`: the tables, their indexes and TOAST tables.
 * @param {{ query: (sql: string, params?: unknown[]) => Promise<{ rows: any[] }> }} db
 * @param {string[]} partitions
 * @returns {Promise<number[]>}
 */
export async function relationSizes(db, partitions) {
  const { rows } = await db.query(
    `WITH t AS (SELECT p::regclass::oid AS oid FROM unnest($1::text[]) p)
     SELECT pg_relation_size(c.oid) AS bytes FROM pg_class c
     WHERE c.oid IN (SELECT oid FROM t)
        OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM t))
        OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE oid IN (SELECT oid FROM t))`,
    [partitions],
  );
  return rows.map((row) => Number(row.bytes));
}

/**
 * Writes a file of each size in `dir`, then times truncating them all to nothing; the files are
 * removed afterwards. cached: false writes them out and gives their pages back to the kernel first.
 * @param {string} dir @param {number[]} sizes @param {{ cached?: boolean }} [options] @returns {number} ms
 */
export function timeTruncate(dir, sizes, { cached = true } = {}) {
  // In blocks of 8 KiB, as PostgreSQL writes its pages: the page cache then holds them as PostgreSQL's.
  const chunk = Buffer.alloc(8192, 1);
  const files = sizes.map((bytes, i) => {
    const file = path.join(dir, `relation-${i}`);
    const fd = fs.openSync(file, 'w');
    for (let left = bytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    fs.closeSync(fd);
    return file;
  });
  if (!cached) dropFromCache(files);
  const started = performance.now();
  for (const file of files) fs.truncateSync(file, 0);
  const ms = performance.now() - started;
  for (const file of files) fs.rmSync(file, { force: true });
  return ms;
}
