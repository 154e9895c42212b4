// `collect` polling faster than the platform measures: the Cloud Controller answers an instance's latest
// reading until Diego measures again. Every poll's row is stored (the instance was there), a repeat
// marked as one, so each reading counts once; Prometheus shows the instance at every poll.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';

describe('collect marks the readings the Cloud Controller repeats', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  const apps = makeApps(1, 2);
  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps })]);
  });
  after(async () => {
    await sim.close();
    await db.stop();
  });

  it('polls every second, the reading changes twice: three readings per instance, the other polls repeats', async () => {
    const { cli, base } = await startCollect(collectEnv(db, sim, { POLL_SCHEDULE: '* * * * * *' }));
    const instances = apps[0].processes[0].instances;
    const [first0, first1] = instances.map((i) => Math.round(/** @type {number} */ (i.cpu) * 1e8) / 1e6);
    const polls = async () =>
      /^paasmon_source_poll_duration_seconds_count\{[^}]*cloud-controller[^}]*\} (\d+)/m.exec(
        await (await fetch(`${base}/metrics`)).text(),
      );
    /** @param {number} n */
    const afterPolls = async (n) => {
      const start = Number((await polls())?.[1] ?? 0);
      await waitFor(async () => Number((await polls())?.[1] ?? 0) >= start + n, { what: `${n} more polls` });
    };
    try {
      await afterPolls(3);
      instances[0].cpu = 0.5; // Diego measured again: instance 0 only
      await afterPolls(3);
      instances[0].cpu = 0.75;
      instances[1].mem = 123_456_789;
      await afterPolls(3);
      const { rows } = await db.query(
        `SELECT instance_index, array_agg(round(cpu_percent::numeric, 6)::float8 ORDER BY ts) AS cpu,
           array_agg(mem_bytes::float8 ORDER BY ts) AS mem
         FROM instance_samples WHERE repeated IS NOT TRUE GROUP BY instance_index ORDER BY instance_index`,
      );
      const { rows: all } = await db.query(
        'SELECT count(DISTINCT ts)::int AS polls, count(*) FILTER (WHERE repeated)::int AS repeats FROM instance_samples',
      );
      assert.ok(all[0].polls >= 9, `${all[0].polls} polls stored`);
      assert.equal(all[0].repeats, 2 * all[0].polls - 5, 'every row but the 5 readings is a repeat');
      assert.deepEqual(rows, [
        { instance_index: 0, cpu: [first0, 50, 75], mem: [104857600, 104857600, 104857600] },
        { instance_index: 1, cpu: [first1, first1], mem: [104857601, 123456789] },
      ]);
      // Prometheus shows the latest reading of every instance whatever was stored.
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, /^paasmon_instance_cpu_percent\{[^}]*instance_index="0"[^}]*\} 75$/m);
      assert.match(metrics, /^paasmon_instance_memory_bytes\{[^}]*instance_index="1"[^}]*\} 123456789$/m);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });
});
