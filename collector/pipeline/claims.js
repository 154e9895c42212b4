// Collectors side by side (`cf scale collector -i N`, a rolling push): each learns its live peers
// from a heartbeat in the database, polls its share of the watched apps and covers the share of one
// that stopped, and one collector at a time holds each incremental reader (router-log ingest, the
// followed file, Log Cache). PostgreSQL only: exporters/postgres/claims/claims.js.
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import cron from 'node-cron';
import { SourceError } from '../../core/errors.js';
import { JOB } from '../../core/reason-codes.js';
import {
  beat,
  claimPolls,
  claimedPolls,
  forgetOldClaims,
  leave,
  releaseLease,
  takeLease,
  withLease,
} from '../../exporters/postgres/claims/claims.js';
import { withDeadline } from './run-jobs.js';

/** How long a reader lease lasts unless renewed: a stopped collector's readers are taken over after it. */
export const LEASE_MS = 30_000;
/** A heartbeat lasts this many poll intervals: a crashed collector counts as a peer until then. */
export const PEER_LEASE_INTERVALS = 3;
/** The part of the poll interval the preferred collector of an app has to claim it before the others try. */
const GRACE_FRACTION = 1 / 3;
/** Old claims are removed on the first poll and then every this many polls. */
const FORGET_EVERY = 100;
/** A stopping collector waits this long at most for its heartbeat's removal (the row expires anyway). */
const LEAVE_MS = 2000;

/**
 * The peer that polls an app first: the highest weight of (peer, app) (rendezvous hashing), so a
 * peer joining or leaving moves only the apps it takes or had. The same for any order of `peers`.
 * @param {string} appGuid @param {readonly string[]} peers at least one
 */
export function preferredPeer(appGuid, peers) {
  let best = peers[0];
  let bestWeight = -1n;
  for (const peer of peers) {
    const weight = createHash('sha256').update(`${peer}\n${appGuid}`).digest().readBigUInt64BE(0);
    if (weight > bestWeight || (weight === bestWeight && peer < best)) [best, bestWeight] = [peer, weight];
  }
  return best;
}

/**
 * Collectors share the apps with the peers of their watch only: the same Cloud Controller, apps
 * and schedule (another watch's collector would leave its share of these apps to the cover).
 * @param {{ api?: string, apps: string[], spaceGuid?: string }} cf @param {string} pollSchedule
 */
export function watchOf(cf, pollSchedule) {
  const watch = [cf.api ?? '', [...cf.apps].sort(), cf.spaceGuid ?? '', pollSchedule];
  return createHash('sha256').update(JSON.stringify(watch)).digest('hex').slice(0, 16);
}

/** Milliseconds between the next two runs of a cron expression with seconds. @param {string} expression */
export function cronIntervalMs(expression) {
  const task = cron.createTask(expression, () => {});
  const [a, b] = task.getNextRuns(2);
  void task.destroy();
  return a && b ? b.getTime() - a.getTime() : 60_000;
}

/**
 * @typedef {{ guid: string, name: string }} App
 * @typedef {import('../../core/types.js').PollContext} PollContext
 */

/**
 * @param {{ cf: { api?: string, apps: string[], spaceGuid?: string }, pollSchedule: string }} config the watch
 * @param {{ pool: import('pg').Pool, schemaReady: Promise<boolean>, leaseMs?: number }} deps
 */
export function createSharing({ cf, pollSchedule }, { pool, schemaReady, leaseMs = LEASE_MS }) {
  const holder = `${os.hostname()}#${randomUUID()}`;
  const intervalMs = cronIntervalMs(pollSchedule);
  const graceMs = intervalMs * GRACE_FRACTION;
  // A database that answers later than the grace does not hold the poll up: it polls without it.
  const self = { pool, holder, answerMs: graceMs };
  const peering = { ...self, watch: watchOf(cf, pollSchedule), ms: intervalMs * PEER_LEASE_INTERVALS };
  let ready = false;
  void schemaReady.then((ok) => (ready = ok));
  /** @type {SlotState} */
  const slot = { phase: 'all', peers: [holder], seen: new Map(), mine: new Set() };
  let polls = 0;
  /** @param {App[]} apps @param {PollContext} ctx */
  const claimApps = (apps, ctx) => claimFor(slot, self, apps, ctx);

  /**
   * The poll of a shared source: the heartbeat, this collector's share at once, then, a third of the
   * interval after the slot, the apps no collector claimed (their preferred one stopped or is late).
   * Before the schema is in place, every app.
   * @template {import('../../core/types.js').Source<any>} S @param {S} source @returns {S}
   */
  function share(source) {
    /** @param {PollContext} ctx @param {'preferred' | 'cover'} part */
    const pollPart = async (ctx, part) => {
      slot.phase = part;
      try {
        return await source.poll(ctx);
      } finally {
        slot.phase = 'all';
      }
    };
    return {
      ...source,
      async poll(ctx) {
        if (!ready) return source.poll(ctx);
        slot.mine = new Set();
        slot.seen = new Map();
        slot.peers = await livePeers(peering, slot.peers, ctx);
        if (polls++ % FORGET_EVERY === 0) void forgetOldClaims(pool, ctx.now).catch(() => {});
        const records = await pollPart(ctx, 'preferred');
        const open = [...slot.seen.keys()].filter((guid) => !slot.mine.has(guid));
        if (!open.length) return records;
        return cover(records, { db: self, open, wait: ctx.now.getTime() + graceMs - Date.now(), ctx }, () =>
          pollPart(ctx, 'cover'),
        );
      },
      /** Leaves the peers at once (the others take this one's apps from their next poll), then closes. */
      async close() {
        if (ready) {
          const gone = leave(pool, holder).catch(() => {});
          await withDeadline(gone, Date.now() + LEAVE_MS);
        }
        await source.close?.();
      },
    };
  }

  const holdReader = readerLeases({ pool, schemaReady, holder, leaseMs });
  return { holder, graceMs, claimApps, share, holdReader };
}

/** @typedef {ReturnType<typeof createSharing>} Sharing */

/**
 * @typedef {{ pool: import('pg').Pool, answerMs: number }} Database the pool, and how long a poll waits
 *   for its answers
 *
 * @typedef {object} SlotState the shared poll in progress
 * @property {'all' | 'preferred' | 'cover'} phase 'all' outside a shared poll; 'preferred' claims this
 *   collector's share, 'cover' the rest
 * @property {string[]} peers the live peers of the current poll
 * @property {Map<string, App>} seen apps seen by the current poll
 * @property {Set<string>} mine apps this collector claimed (or polled without a claim) for the current slot
 */

/**
 * The Cloud Controller source's hook: of the apps it would poll, the ones this collector polls now.
 * A claim the database does not answer polls the app anyway (a sample twice is stored once).
 * @param {SlotState} slot @param {{ pool: import('pg').Pool, holder: string, answerMs: number }} self
 * @param {App[]} apps @param {PollContext} ctx @returns {Promise<Set<string> | undefined>} undefined: all
 */
async function claimFor(slot, { pool, holder, answerMs }, apps, ctx) {
  if (slot.phase === 'all') return undefined;
  if (slot.phase === 'preferred') slot.seen = new Map(apps.map((a) => [a.guid, a]));
  const wanted = [...new Set(apps.map((a) => a.guid))].filter((guid) =>
    slot.phase === 'preferred' ? preferredPeer(guid, slot.peers) === holder : !slot.mine.has(guid),
  );
  try {
    const claimed = await inTime(claimPolls(pool, { slot: ctx.now, appGuids: wanted, holder }), answerMs);
    for (const guid of claimed) slot.mine.add(guid);
    return claimed;
  } catch (err) {
    ctx.warn(JOB.CLAIMS_UNAVAILABLE, `poll claims: ${/** @type {Error} */ (err).message}; polling without them`);
    for (const guid of wanted) slot.mine.add(guid);
    return new Set(wanted);
  }
}

/**
 * What `work` answers, or an error once `ms` have passed.
 * @template T @param {Promise<T>} work @param {number} ms @returns {Promise<T>}
 */
async function inTime(work, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms);
  });
  try {
    return /** @type {T} */ (await Promise.race([work, late]));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The second part of a shared poll: after `wait`, the apps left to the others that nobody claimed.
 * @template R @param {R[]} records the first part's
 * @param {{ db: Database, open: string[], wait: number, ctx: PollContext }} left
 * @param {() => Promise<R[]>} pollCover @returns {Promise<R[]>}
 */
async function cover(records, { db, open, wait, ctx }, pollCover) {
  if (wait > 0) await sleep(wait, undefined, { signal: ctx.signal }).catch(() => {});
  if (ctx.signal.aborted || !(await unclaimed(db, open, ctx)).length) return records;
  try {
    return [...records, ...(await pollCover())];
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    throw new SourceError(err.message, { reason: err.reason, cause: err, records: [...records, ...err.records] });
  }
}

/**
 * This collector's heartbeat, renewed, and the live peers of its watch (itself among them); the
 * peers so far when the database does not answer (the claims then fail too, and it polls every app).
 * @param {{ pool: import('pg').Pool, holder: string, watch: string, ms: number, answerMs: number }} peering
 * @param {string[]} before @param {PollContext} ctx
 */
async function livePeers({ pool, holder, watch, ms, answerMs }, before, ctx) {
  try {
    const live = await inTime(beat(pool, { peer: holder, watch, ms }), answerMs);
    if (live.join() !== before.join())
      ctx.log.info({ collectors: live.length }, 'collect: the collectors sharing the apps changed');
    return live;
  } catch (err) {
    ctx.warn(JOB.CLAIMS_UNAVAILABLE, `collector peers: ${/** @type {Error} */ (err).message}`);
    return before;
  }
}

/**
 * Of the apps seen in the first phase and left to the others, the ones nobody claimed for this slot.
 * @param {Database} db @param {string[]} open @param {PollContext} ctx
 */
async function unclaimed({ pool, answerMs }, open, ctx) {
  try {
    const taken = await inTime(claimedPolls(pool, { slot: ctx.now, appGuids: open }), answerMs);
    return open.filter((guid) => !taken.has(guid));
  } catch {
    return open;
  }
}

/**
 * One collector at a time holds each incremental reader: a lease in PostgreSQL, renewed as it works.
 * @param {{ pool: import('pg').Pool, schemaReady: Promise<boolean>, holder: string, leaseMs: number }} deps
 */
function readerLeases({ pool, schemaReady, holder, leaseMs }) {
  /**
   * `work` of an incremental reader, run only while this collector holds the reader's lease (renewed
   * as it works, given up after): the other collectors skip the run meanwhile.
   * @template {{ records: number }} R
   * @param {string} reader @param {(ctx: PollContext) => Promise<R>} work
   * @returns {(ctx: PollContext) => Promise<R | { records: number }>}
   */
  function holdReader(reader, work) {
    return async (ctx) => {
      if (!(await schemaReady)) return { records: 0 };
      const lease = { reader, holder };
      if (!(await takeLease(pool, { ...lease, ms: leaseMs }))) {
        ctx.log.debug({ reader }, 'another collector reads this now; skipped');
        return { records: 0 };
      }
      const renew = setInterval(() => void takeLease(pool, { ...lease, ms: leaseMs }).catch(() => {}), leaseMs / 3);
      try {
        return await withLease(lease, () => work(ctx));
      } finally {
        clearInterval(renew);
        await releaseLease(pool, lease).catch(() => {});
      }
    };
  }
  return holdReader;
}
