// Collectors side by side: which live peer polls an app first (rendezvous hashing), what a peer
// joining or leaving moves, the grace before the others cover, which collectors count as peers, and
// a poll while the database does not answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createSharing, cronIntervalMs, preferredPeer, watchOf } from '../../collector/pipeline/claims.js';
import { guidFrom } from '../../sandbox/cf-simulator.js';

const guids = Array.from({ length: 600 }, (_, i) => guidFrom(`app-${i}`));
const peersOf = (/** @type {number} */ n) => Array.from({ length: n }, (_, i) => `host-${i}#${guidFrom(`p${i}`)}`);
/** @param {string[]} peers */
const owners = (peers) => new Map(guids.map((g) => [g, preferredPeer(g, peers)]));

describe('collector sharing', () => {
  it('gives each app to one live peer, whatever their order, spread over all of them', () => {
    for (const n of [1, 2, 3, 5]) {
      const peers = peersOf(n);
      const shares = new Map(peers.map((p) => [p, 0]));
      const reversed = [...peers].reverse();
      for (const guid of guids) {
        const owner = preferredPeer(guid, peers);
        assert.equal(preferredPeer(guid, reversed), owner);
        shares.set(owner, /** @type {number} */ (shares.get(owner)) + 1);
      }
      // A uniform hash gives each about 600 / n; none is left without apps, none takes twice its part.
      for (const share of shares.values()) {
        assert.ok(share > (600 / n) * 0.7 && share < (600 / n) * 1.3, `shares of ${n}: ${[...shares.values()]}`);
      }
    }
  });

  it('a peer leaving moves only its apps; a peer joining takes only its share', () => {
    const four = peersOf(4);
    const three = four.slice(0, 3);
    const before = owners(three);
    const joined = owners(four);
    const moved = guids.filter((g) => joined.get(g) !== before.get(g));
    assert.ok(
      moved.every((g) => joined.get(g) === four[3]),
      'every app that moved went to the peer that joined',
    );
    assert.ok(moved.length > 600 / 4 / 1.3 && moved.length < (600 / 4) * 1.3, `moved ${moved.length} of 600`);
    // The same peer leaving again gives each of its apps back to the peer that had it.
    const left = owners(three);
    for (const g of guids) assert.equal(left.get(g), before.get(g));
    // One of three leaving: the apps of the two others stay where they were.
    const two = owners([three[0], three[2]]);
    for (const g of guids) if (before.get(g) !== three[1]) assert.equal(two.get(g), before.get(g));
  });

  it('measures the poll interval of the schedule (the grace is a third of it)', () => {
    assert.equal(cronIntervalMs('*/5 * * * * *'), 5000);
    assert.equal(cronIntervalMs('*/2 * * * * *'), 2000);
    assert.equal(cronIntervalMs('0 * * * * *'), 60_000);
  });

  it('collectors of the same apps, Cloud Controller and schedule are peers; others are not', () => {
    const cf = { api: 'https://api.example', apps: ['shop', 'cart'], spaceGuid: undefined };
    const watch = watchOf(cf, '*/5 * * * * *');
    assert.equal(watchOf({ ...cf, apps: ['cart', 'shop'] }, '*/5 * * * * *'), watch);
    assert.notEqual(watchOf({ ...cf, apps: ['shop'] }, '*/5 * * * * *'), watch);
    assert.notEqual(watchOf({ ...cf, api: 'https://api.other' }, '*/5 * * * * *'), watch);
    assert.notEqual(watchOf(cf, '*/10 * * * * *'), watch);
  });

  /** @typedef {(holder: string) => (text: string) => Promise<any>} FakeQuery */
  const hang = () => new Promise(() => {});
  for (const [what, fake, waits, warned] of /** @type {Array<[string, FakeQuery, number, number]>} */ ([
    ['refuses', () => async () => Promise.reject(new Error('connection refused')), 0, 2],
    ['hangs', () => hang, 2, 2],
    // Another peer then takes half the apps, left unclaimed: this one covers them after the grace.
    [
      'names a peer and hangs',
      (holder) => async (text) => (/collector_peers/.test(text) ? { rows: [{ peer: 'a' }, { peer: holder }] } : hang()),
      3,
      2,
    ],
  ])) {
    it(`while the database ${what}, polls every app once and ends`, async () => {
      /** @type {(text: string) => Promise<any>} */
      let query = hang;
      const sharing = createSharing(
        { cf: { apps: [], spaceGuid: 's' }, pollSchedule: '*/3 * * * * *' },
        {
          pool: /** @type {any} */ ({ query: (/** @type {string} */ text) => query(text) }),
          schemaReady: Promise.resolve(true),
        },
      );
      query = fake(sharing.holder);
      await new Promise((resolve) => setImmediate(resolve));
      const apps = guids.slice(0, 20).map((guid) => ({ guid, name: guid }));
      /** @type {string[]} */
      const polled = [];
      const source = sharing.share({
        name: 'cloud-controller',
        async poll(/** @type {import('../../core/types.js').PollContext} */ ctx) {
          const claimed = await sharing.claimApps(apps, ctx);
          polled.push(...apps.filter((a) => !claimed || claimed.has(a.guid)).map((a) => a.guid));
          return [];
        },
      });
      /** @type {string[]} */
      const warnings = [];
      const started = Date.now();
      await source.poll({
        now: new Date(started),
        signal: new AbortController().signal,
        log: pino({ level: 'silent' }),
        warn: (reason) => void warnings.push(reason),
      });
      assert.deepEqual([...polled].sort(), apps.map((a) => a.guid).sort(), 'each app once');
      // Each step the database does not answer waits a grace at most.
      const took = Date.now() - started;
      assert.ok(took < sharing.graceMs * waits + 500, `the poll took ${took} ms`);
      assert.ok(took >= sharing.graceMs * waits - 50, `the poll took ${took} ms`);
      assert.deepEqual(warnings, new Array(warned).fill('claims_unavailable'));
    });
  }
});
