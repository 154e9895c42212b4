// `collect` against clients that misbehave (test/support/abuse.js, the scenarios of
// test/integration/collect-abuse.test.js): the slowest /livez while each lasted, the collector's memory
// after it, the drain's 2,000 requests meanwhile, and what the abusing client saw.
// Run: npm run bench -- abuse
import { startAbuseTarget } from '../test/support/abuse.js';
import os from 'node:os';

const target = await startAbuseTarget();
try {
  console.log(`abuse: collect at the manifest's memory flags; load average ${os.loadavg()[0].toFixed(1)}`);
  for (const [name, scenario] of /** @type {const} */ ([
    ['1,000 idle connections', target.idleConnections],
    ['a body without end', target.endlessBody],
    ['100 MB without the token', target.bigBodyWithoutToken],
    ['10,000 req/s of 404s, 5 s', target.flood404],
  ])) {
    const f = await scenario();
    console.log(
      `  ${name}: slowest /livez ${f.slowestLivezMs.toFixed(1)} ms; RSS ${(f.rssBytes / 2 ** 20).toFixed(1)} MB; ` +
        `2,000 drained requests stored in ${f.drainedMs.toFixed(0)} ms; ${f.outcome}`,
    );
  }
} finally {
  await target.stop();
}
