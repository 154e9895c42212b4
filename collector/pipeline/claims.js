// Collectors side by side (`instances: 2`, a rolling push): each polls its share of the watched
// apps and covers the share of one that stopped, and one collector at a time holds each incremental
// reader (router-log ingest, the followed file, Log Cache). PostgreSQL only: exporters/postgres/claims.js.
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import cron from 'node-cron';
import { SourceError } from '../../core/errors.js';
import { JOB } from '../../core/reason-codes.js';
import {
  claimPolls,
  claimedPolls,
  forgetOldClaims,
  releaseLease,
  takeLease,
  withLease,
} from '../../exporters/postgres/claims.js';

/** How long a reader lease lasts unless renewed: a stopped collector's readers are taken over after it. */
export const LEASE_MS = 30_000;
/** The part of the poll interval the preferred collector of an app has to claim it before the others try. */
const GRACE_FRACTION = 1 / 3;
/** Old claims are removed on the first poll and then every this many polls. */
const FORGET_EVERY = 100;

/**
 * The collector (0 .. instances-1) that polls an app first: stable for one guid and one count.
 * @param {string} appGuid @param {number} instances
 */
export function preferredInstance(appGuid, instances) {
  return createHash('sha256').update(appGuid).digest().readUInt32BE(0) % instances;
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
 * @param {{ sharing: { instances: number, index: number }, pollSchedule: string }} config COLLECT_INSTANCES
 *   collectors share the apps (1: no sharing); this one is COLLECT_INSTANCE_INDEX; the poll slots are claimed
 * @param {{ pool: import('pg').Pool, schemaReady: Promise<boolean>, leaseMs?: number }} deps
 */
export function createSharing(
  { sharing: { instances, index }, pollSchedule },
  { pool, schemaReady, leaseMs = LEASE_MS },
) {
  const holder = `${os.hostname()}#${index}#${randomUUID()}`;
  const graceMs = cronIntervalMs(pollSchedule) * GRACE_FRACTION;
  /** 'all' outside a shared poll; 'preferred' claims this collector's share, 'cover' the rest. */
  let phase = /** @type {'all' | 'preferred' | 'cover'} */ ('all');
  /** @type {Map<string, App>} apps seen by the current poll */
  let seen = new Map();
  /** @type {Set<string>} apps this collector claimed for the current slot */
  let mine = new Set();
  let polls = 0;

  /**
   * The Cloud Controller source's hook: of the apps it would poll, the ones this collector polls now.
   * A claim the database does not answer polls the app anyway (a sample twice is stored once).
   * @param {App[]} apps @param {PollContext} ctx @returns {Promise<Set<string> | undefined>} undefined: all
   */
  async function claimApps(apps, ctx) {
    if (phase === 'all') return undefined;
    if (phase === 'preferred') seen = new Map(apps.map((a) => [a.guid, a]));
    const wanted = [...new Set(apps.map((a) => a.guid))].filter((guid) =>
      phase === 'preferred' ? preferredInstance(guid, instances) === index : !mine.has(guid),
    );
    try {
      const claimed = await claimPolls(pool, { slot: ctx.now, appGuids: wanted, holder });
      for (const guid of claimed) mine.add(guid);
      return claimed;
    } catch (err) {
      ctx.warn(JOB.CLAIMS_UNAVAILABLE, `poll claims: ${/** @type {Error} */ (err).message}; polling without them`);
      return new Set(wanted);
    }
  }

  /**
   * The poll of a shared source: this collector's share at once, then, a third of the interval after
   * the slot, the apps no collector claimed (their preferred one stopped or is late).
   * @template {import('../../core/types.js').Source<any>} S @param {S} source @returns {S}
   */
  function share(source) {
    if (instances <= 1) return source;
    /** @param {PollContext} ctx @param {'preferred' | 'cover'} part */
    const pollPart = async (ctx, part) => {
      phase = part;
      try {
        return await source.poll(ctx);
      } finally {
        phase = 'all';
      }
    };
    return {
      ...source,
      async poll(ctx) {
        mine = new Set();
        seen = new Map();
        if (polls++ % FORGET_EVERY === 0) void forgetOldClaims(pool, ctx.now).catch(() => {});
        const records = await pollPart(ctx, 'preferred');
        const wait = ctx.now.getTime() + graceMs - Date.now();
        if (wait > 0) await sleep(wait, undefined, { signal: ctx.signal }).catch(() => {});
        if (ctx.signal.aborted || !(await unclaimed(pool, [...seen.keys()], mine, ctx)).length) return records;
        try {
          return [...records, ...(await pollPart(ctx, 'cover'))];
        } catch (err) {
          if (!(err instanceof SourceError)) throw err;
          throw new SourceError(err.message, { reason: err.reason, cause: err, records: [...records, ...err.records] });
        }
      },
    };
  }

  const holdReader = readerLeases({ pool, schemaReady, holder, leaseMs });
  return { holder, graceMs, claimApps, share, holdReader };
}

/** @typedef {ReturnType<typeof createSharing>} Sharing */

/**
 * The apps seen in the first phase that nobody claimed for this slot.
 * @param {import('pg').Pool} pool @param {string[]} seen @param {Set<string>} mine @param {PollContext} ctx
 */
async function unclaimed(pool, seen, mine, ctx) {
  const open = seen.filter((guid) => !mine.has(guid));
  if (!open.length) return [];
  try {
    const taken = await claimedPolls(pool, { slot: ctx.now, appGuids: open });
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
