// Collectors side by side, in PostgreSQL only: a heartbeat per collector so each knows its live
// peers (migration 021), a claim per (app, scheduled poll) so each app is polled once per slot, and
// a lease per incremental reader so one collector at a time reads and moves its checkpoint (013).
import { AsyncLocalStorage } from 'node:async_hooks';

/** The reader lease the current async work holds (set by holdReader, checked by fenceCheckpoint). */
const heldLease = /** @type {AsyncLocalStorage<{ reader: string, holder: string }>} */ (new AsyncLocalStorage());

/** The claims of slots older than this are removed as polls go. */
const CLAIMS_KEPT = '1 day';

/**
 * Claims the polls of `appGuids` at `slot` for `holder`; answers the ones it got (the others were
 * claimed by another collector first).
 * @param {import('pg').Pool} pool @param {{ slot: Date, appGuids: string[], holder: string }} claim
 * @returns {Promise<Set<string>>}
 */
export async function claimPolls(pool, { slot, appGuids, holder }) {
  if (!appGuids.length) return new Set();
  const { rows } = await pool.query(
    `INSERT INTO poll_claims (app_guid, slot, holder) SELECT unnest($1::text[]), $2, $3
      ON CONFLICT (app_guid, slot) DO NOTHING RETURNING app_guid`,
    [appGuids, slot, holder],
  );
  return new Set(rows.map((r) => String(r.app_guid)));
}

/**
 * Which of `appGuids` some collector claimed at `slot`.
 * @param {import('pg').Pool} pool @param {{ slot: Date, appGuids: string[] }} query @returns {Promise<Set<string>>}
 */
export async function claimedPolls(pool, { slot, appGuids }) {
  const { rows } = await pool.query('SELECT app_guid FROM poll_claims WHERE slot = $1 AND app_guid = ANY($2::text[])', [
    slot,
    appGuids,
  ]);
  return new Set(rows.map((r) => String(r.app_guid)));
}

/** Removes the claims of slots a day older than `slot`. @param {import('pg').Pool} pool @param {Date} slot */
export async function forgetOldClaims(pool, slot) {
  await pool.query('DELETE FROM poll_claims WHERE slot < $1::timestamptz - $2::interval', [slot, CLAIMS_KEPT]);
}

/**
 * Renews the heartbeat of `peer` until `ms` from now and answers the peers of `watch` whose
 * heartbeat has not expired, `peer` among them, sorted; rows expired a while ago are removed.
 * @param {import('pg').Pool} pool @param {{ peer: string, watch: string, ms: number }} beat
 * @returns {Promise<string[]>}
 */
export async function beat(pool, { peer, watch, ms }) {
  const { rows } = await pool.query(
    `WITH beat AS (
       INSERT INTO collector_peers (peer, watch, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (peer) DO UPDATE SET watch = EXCLUDED.watch, expires_at = EXCLUDED.expires_at
       RETURNING peer
     ), gone AS (
       DELETE FROM collector_peers WHERE expires_at < now() - interval '1 hour'
     )
     SELECT peer FROM collector_peers WHERE watch = $2 AND expires_at > now() AND peer <> $1
     UNION SELECT peer FROM beat ORDER BY 1`,
    [peer, watch, ms],
  );
  return rows.map((r) => String(r.peer));
}

/** Removes the heartbeat of `peer` (it stops). @param {import('pg').Pool} pool @param {string} peer */
export async function leave(pool, peer) {
  await pool.query('DELETE FROM collector_peers WHERE peer = $1', [peer]);
}

/**
 * Takes (or renews) the lease of `reader` for `holder` for `ms`: true when it is now held by
 * `holder`, false while another holder's lease has not expired.
 * @param {import('pg').Pool} pool @param {{ reader: string, holder: string, ms: number }} lease
 */
export async function takeLease(pool, { reader, holder, ms }) {
  const { rowCount } = await pool.query(
    `INSERT INTO checkpoint_holders AS h (reader, holder, held_until)
          VALUES ($1, $2, now() + $3 * interval '1 millisecond')
     ON CONFLICT (reader) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until
       WHERE h.holder = EXCLUDED.holder OR h.held_until < now()`,
    [reader, holder, ms],
  );
  return rowCount === 1;
}

/**
 * Gives the lease of `reader` up, if `holder` holds it.
 * @param {import('pg').Pool} pool @param {{ reader: string, holder: string }} lease
 */
export async function releaseLease(pool, { reader, holder }) {
  await pool.query('DELETE FROM checkpoint_holders WHERE reader = $1 AND holder = $2', [reader, holder]);
}

/**
 * Runs `work` as the holder of the lease of `reader`: the checkpoints it saves are fenced by it.
 * @template T @param {{ reader: string, holder: string }} lease @param {() => Promise<T>} work
 */
export function withLease(lease, work) {
  return heldLease.run(lease, work);
}

/**
 * Inside the transaction that moves a checkpoint: when the work holds a reader lease, makes sure it
 * still does and keeps it (row lock) until the commit, so a collector that took the reader over
 * after the lease expired never sees its checkpoint moved behind its back.
 * @param {import('pg').PoolClient} client
 */
export async function fenceCheckpoint(client) {
  const lease = heldLease.getStore();
  if (!lease) return;
  const { rowCount } = await client.query(
    'SELECT 1 FROM checkpoint_holders WHERE reader = $1 AND holder = $2 AND held_until > now() FOR SHARE',
    [lease.reader, lease.holder],
  );
  if (rowCount !== 1)
    throw new Error(`${lease.reader}: another collector took this reader over (lease expired); this increment stops`);
}
