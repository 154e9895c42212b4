// The schema: the tables by sql/migrations/*.sql applied in order by node-pg-migrate, recorded in
// paasmon_migrations; then the views and SQL functions of sql/views/*.sql in name order, so their
// current definition is the file's: on every explicit migrate, and on other commands' migrate when
// the files differ from those last applied (paasmon_view_files) or a migration ran. One transaction.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { retry } from '../../../core/retry.js';
import { isConnectionError, withClient } from '../client.js';
import { preparePartitions } from './partitions.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../sql/migrations/', import.meta.url));
export const VIEWS_DIR = fileURLToPath(new URL('../../../sql/views/', import.meta.url));
const MIGRATIONS_TABLE = 'paasmon_migrations';
/** node-pg-migrate's PG_MIGRATE_LOCK_ID, the lock every release's migrate takes; the package loads only when needed. */
export const MIGRATE_LOCK_ID = '7241865325823964';

/** A migration the database refused (not a lost connection): retrying it would fail the same way. */
export class MigrationError extends Error {
  /** @param {string} message @param {{ migration?: string, cause?: unknown }} options */
  constructor(message, options) {
    super(message, { cause: options.cause });
    this.name = 'MigrationError';
    this.migration = options.migration;
  }
}

/** The file of a migration, as the repository names it (`sql/migrations/003_x.sql`). @param {string} name */
function migrationFile(name) {
  const file = fs.readdirSync(MIGRATIONS_DIR).find((f) => path.parse(f).name === name) ?? name;
  return `sql/migrations/${file}`;
}

/** The view and function files, in the order they are applied. */
export function viewFiles() {
  return fs
    .readdirSync(VIEWS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** The view files' names and texts, in the order they are applied, and one digest of them all. */
function readViewFiles() {
  const files = viewFiles().map((name) => ({ name, sql: fs.readFileSync(path.join(VIEWS_DIR, name), 'utf8') }));
  const hash = createHash('sha256');
  for (const { name, sql } of files) hash.update(`${name}\0${sql}\0`);
  return { files, digest: hash.digest('hex') };
}

/**
 * Whether the runner has anything to do: false only when the migrations table lists exactly the
 * files of sql/migrations, in their order (then the runner would only read them all to find so).
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query
 */
async function migrationsPending(query) {
  const { rows } = await query('SELECT to_regclass($1) IS NOT NULL AS present', [MIGRATIONS_TABLE]);
  if (!rows[0].present) return true;
  const applied = (await query('SELECT name FROM paasmon_migrations ORDER BY id')).rows.map(
    (/** @type {any} */ r) => r.name,
  );
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => path.parse(f).name)
    .sort();
  return applied.join('\n') !== files.join('\n');
}

/**
 * Applies every file of sql/views when `always` or when their digest is not the one last applied
 * (paasmon_view_files), and records it. `applying` is told each file's name before it runs. New
 * files may compute figures otherwise: every run's stored figures are then stale (run_figures_written).
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query @param {boolean} always
 * @param {(file: string | undefined) => void} applying
 */
async function applyViews(query, always, applying) {
  const { files, digest } = readViewFiles();
  const { rows } = await query('SELECT digest FROM paasmon_view_files');
  const changed = rows[0]?.digest !== digest;
  if (!always && !changed) return;
  for (const file of files) {
    applying(`sql/views/${file.name}`);
    await query(file.sql);
  }
  applying(undefined);
  if (changed) await query('SELECT run_figures_written(NULL, NULL)');
  await query(
    `INSERT INTO paasmon_view_files (digest) VALUES ($1)
     ON CONFLICT (single) DO UPDATE SET digest = excluded.digest, applied_at = now()`,
    [digest],
  );
}

// The runner's own transaction statements: the whole migrate is one transaction of ours instead.
const RUNNER_TRANSACTION = new Set(['BEGIN', 'COMMIT', 'ROLLBACK']);

/**
 * Applies pending migrations, then every file of sql/views, in one transaction under the advisory
 * lock node-pg-migrate uses (safe with several collectors: the second waits, then finds nothing to
 * migrate). views 'changed' (a command's start) skips the view files when no migration ran and
 * their digest is the one last applied, so a view changed by hand stays until an explicit migrate
 * ('always', the default) puts it back; only 'always' does the partitions' upkeep too
 * (preparePartitions). A lost connection is thrown as it came (isConnectionError
 * tells it); anything else the database refused becomes a MigrationError whose one-line message
 * names the file and the server's error.
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log
 * @param {{ views?: 'always' | 'changed' }} [options]
 * @returns {Promise<string[]>} names of the migrations applied now
 */
export async function migrate(pool, log, { views = 'always' } = {}) {
  /** @type {string | undefined} */
  let current;
  /** @type {unknown} */
  let refused;
  let connected = false;
  const started = performance.now();
  /** @type {Record<string, number>} */
  const steps = {};
  const applied = await withClient(pool, async (client) => {
    connected = true;
    /** @param {any[]} args */
    const query = (...args) =>
      /** @type {Promise<any>} */ (/** @type {any} */ (client.query)(...args)).catch((err) => {
        refused ??= err; // the first: after it, every statement fails on the aborted transaction
        throw err;
      });
    // node-pg-migrate wraps some statement errors in a message holding their stack and drops the
    // error itself: the statement's own error is kept here as it passes.
    const dbClient = /** @type {any} */ ({
      query: (/** @type {any[]} */ ...args) =>
        RUNNER_TRANSACTION.has(args[0]) ? Promise.resolve({ rows: [], rowCount: 0 }) : query(...args),
    });
    // Several paasmon processes (load-generator instances, collectors) may start together.
    await query('SELECT pg_advisory_lock($1::bigint)', [MIGRATE_LOCK_ID]);
    try {
      await query('BEGIN');
      const done = !(await migrationsPending(query))
        ? []
        : await (
            await import('node-pg-migrate')
          ).runner({
            dbClient,
            dir: MIGRATIONS_DIR,
            direction: 'up',
            migrationsTable: MIGRATIONS_TABLE,
            checkOrder: true,
            noLock: true,
            singleTransaction: true,
            log: (message) => {
              current = /^### MIGRATION (\S+) \(UP\) ###$/.exec(message)?.[1] ?? current;
              log.debug({ migration: message }, 'migrate');
            },
          });
      steps.migrations = Math.round(performance.now() - started);
      await applyViews(query, views === 'always' || done.length > 0, (file) => {
        current = file;
      });
      await query('COMMIT');
      steps.views = Math.round(performance.now() - started) - steps.migrations;
      return done;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATE_LOCK_ID]).catch(() => {});
    }
  }).catch((err) => {
    // Not connected (refused password, no such database): no migration ran; the caller names the server.
    if (!connected) throw err;
    const cause = refused ?? err;
    if (isConnectionError(cause)) throw cause;
    if (isConnectionError(err)) throw err;
    const what = current
      ? current.startsWith('sql/views/')
        ? current
        : `migration ${migrationFile(current)}`
      : `migrations (table ${MIGRATIONS_TABLE})`;
    throw new MigrationError(`postgres: ${what} failed: ${describeRefusal(cause)}`, { migration: current, cause });
  });
  // The coming days' partitions (partitions.js): an explicit migrate's upkeep, never a read's.
  if (views === 'always') {
    const prepared = performance.now();
    await preparePartitions(pool);
    steps.partitions = Math.round(performance.now() - prepared);
  }
  log.debug({ steps }, 'migrate steps');
  return applied.map((m) => m.name);
}

/**
 * The server's message and SQLSTATE on one line (node-pg-migrate's own errors carry a stack in
 * their message: its first line only).
 * @param {unknown} err
 */
function describeRefusal(err) {
  const e = /** @type {any} */ (err);
  const message = String(e?.message ?? e).split('\n')[0];
  return e?.code ? `${message} (SQLSTATE ${e.code})` : message;
}

/**
 * Applies migrations, retrying with backoff while the database cannot be reached (refused,
 * unresolvable, shutting down, connection lost or timed out); any other failure ends it.
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log @param {AbortSignal} signal
 * @returns {Promise<boolean>} false only when shutdown came first
 * @throws {MigrationError} a migration the database refused
 */
export async function migrateUntilDone(pool, log, signal) {
  try {
    const applied = await retry(() => migrate(pool, log), {
      backoff: { retries: Infinity, baseDelayMs: 1000, maxDelayMs: 30_000 },
      signal,
      retryable: isConnectionError,
      onRetry: ({ err, delayMs }) => log.warn({ err, retryInMs: delayMs }, 'postgres: migration failed; retrying'),
    });
    if (applied.length) log.info({ applied }, 'postgres: migrations applied');
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}
