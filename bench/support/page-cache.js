// The page cache of a test database's relations, for the scale bench's prune: partitions past a
// retention limit were written and checkpointed long ago in a real database, so few of their pages
// are in memory; the bench's were written moments before. These helpers find the files of some
// partitions, give back their cached pages (after a CHECKPOINT and sync: only clean pages can go)
// and say how much of them is cached.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every file of the relations making up `partitions` (tables, indexes, TOAST tables and their
 * indexes; each segment and fork), as absolute paths.
 * @param {{ dir: string, query: (sql: string, params?: unknown[]) => Promise<{ rows: any[] }> }} db
 * @param {string[]} partitions
 * @returns {Promise<string[]>}
 */
export async function relationFiles(db, partitions) {
  const { rows } = await db.query(
    `WITH t AS (SELECT p::regclass::oid AS oid FROM unnest($1::text[]) p),
          r AS (SELECT oid FROM t UNION SELECT reltoastrelid FROM pg_class WHERE oid IN (SELECT oid FROM t)
                AND reltoastrelid <> 0)
     SELECT pg_relation_filepath(oid) AS file FROM r
     UNION ALL SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid IN (SELECT oid FROM r)`,
    [partitions],
  );
  const data = path.join(db.dir, 'data');
  return rows.flatMap(({ file }) => {
    const dir = path.join(data, path.dirname(file));
    const base = path.basename(file);
    return fs
      .readdirSync(dir)
      .filter((name) => name === base || name.startsWith(`${base}.`) || name.startsWith(`${base}_`))
      .map((name) => path.join(dir, name));
  });
}

/**
 * Bytes of `files` in the page cache (util-linux fincore), or undefined where fincore is missing.
 * @param {string[]} files @returns {number | undefined}
 */
export function cachedBytes(files) {
  let total = 0;
  for (let i = 0; i < files.length; i += 200) {
    const run = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', ...files.slice(i, i + 200)], {
      encoding: 'utf8',
    });
    if (run.status !== 0) return undefined;
    total += run.stdout
      .split('\n')
      .filter(Boolean)
      .reduce((sum, line) => sum + Number(line.trim()), 0);
  }
  return total;
}

/**
 * Writes the dirty pages out (`sync`), then gives back the cached pages of `files`: per file with
 * GNU dd (posix_fadvise DONTNEED), else the whole page cache through /proc/sys/vm/drop_caches.
 * @param {string[]} files @returns {string} how it was done, or that it could not be
 */
export function dropFromCache(files) {
  spawnSync('sync');
  const dd = (/** @type {string} */ file) =>
    spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']).status === 0;
  if (files.length > 0 && files.every(dd)) return 'dropped per file (dd iflag=nocache)';
  try {
    fs.writeFileSync('/proc/sys/vm/drop_caches', '1');
    return 'dropped with the whole page cache (/proc/sys/vm/drop_caches)';
  } catch {
    return 'NOT dropped (neither GNU dd nor /proc/sys/vm/drop_caches could)';
  }
}
