// syslog-tls:// (collector/sources/syslog-drain/tcp.js) over a real TLS listener with a stand-in
// receiver: TLS hands over one read per 16 KiB record, and the messages of the reads of one turn are
// offered together, each exactly once and in order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { TURN_MESSAGES, startTcpDrain } from '../../collector/sources/syslog-drain/tcp.js';
import { selfSignedCertificate } from '../support/certificate.js';
import { connectTcp, logMessage, octetCounted, rtrEnvelope } from '../support/syslog-agent-standin.js';

const MESSAGES = 1500;
const TLS_RECORD_BYTES = 16 * 1024;

/**
 * A syslog-tls:// drain on a free port, its certificate in `dir`, handing what it reads to `receiver`.
 * @param {string} dir @param {object} receiver
 */
async function startTlsDrain(dir, receiver) {
  const files = selfSignedCertificate(dir, 'drain');
  const drain = await startTcpDrain({
    port: 0,
    host: '127.0.0.1',
    tls: files,
    receiver: /** @type {any} */ (receiver),
    log: pino({ level: 'silent' }),
  });
  return { files, drain };
}

describe('syslog-tls: the reads of a turn offered together', () => {
  it('offers more messages at once than one TLS record holds, each message once and in order', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-drain-tcp-'));
    /** @type {string[][]} */
    const offers = [];
    /** @type {string[]} */
    const rejected = [];
    const receiver = {
      room: 1_000_000,
      /** @param {string[]} messages */
      offer: (messages) => (offers.push([...messages]), messages.length),
      rejectFrame: (/** @type {string} */ reason) => void rejected.push(reason),
      onRoom() {},
    };
    const { files, drain } = await startTlsDrain(dir, receiver);
    try {
      const messages = Array.from({ length: MESSAGES }, (_, i) =>
        logMessage(rtrEnvelope(`line ${i}`, { appGuid: 'a0000000-0000-4000-8000-000000000001', appName: 'shop' })),
      );
      const client = await connectTcp(drain.port, { tls: { ca: fs.readFileSync(files.cert, 'utf8') } });
      await client.write(Buffer.concat(messages.map(octetCounted)));
      await client.end();
      const deadline = Date.now() + 10_000;
      while (offers.flat().length < MESSAGES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        offers.flat(),
        messages.map((m) => m.toString()),
      );
      assert.deepEqual(rejected, []);
      const perRecord = Math.ceil(TLS_RECORD_BYTES / Math.min(...messages.map((m) => m.length)));
      const largest = Math.max(...offers.map((o) => o.length));
      assert.ok(largest > perRecord, `largest offer ${largest} messages, one TLS record holds ${perRecord} at most`);
    } finally {
      await drain.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('syslog drain: what one event-loop turn parses is bounded', () => {
  it('pauses the connections that read past TURN_MESSAGES in a turn, so timers and other sockets get their turn', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-drain-turns-'));
    const connections = 5;
    const perConnection = 4000;
    let offered = 0;
    /** @type {string[]} */
    const texts = [];
    let sinceTick = 0;
    let mostPerTick = 0;
    const receiver = {
      room: 1_000_000,
      /** @param {string[]} messages */
      offer(messages) {
        // A parse that costs time, as the real one does: the senders' bytes pile up meanwhile.
        const until = performance.now() + messages.length * 0.02;
        while (performance.now() < until);
        offered += messages.length;
        texts.push(...messages);
        sinceTick += messages.length;
        mostPerTick = Math.max(mostPerTick, sinceTick);
        return messages.length;
      },
      rejectFrame() {},
      onRoom() {},
    };
    /** @type {NodeJS.Timeout | undefined} */
    let ticker;
    const tick = () => {
      sinceTick = 0;
      ticker = setTimeout(tick, 0);
    };
    tick();
    const { files, drain } = await startTlsDrain(dir, receiver);
    try {
      const message = (/** @type {number} */ k, /** @type {number} */ i) =>
        logMessage(
          rtrEnvelope(`${k} ${i} ${'x'.repeat(500)}`, {
            appGuid: 'a0000000-0000-4000-8000-000000000001',
            appName: 'shop',
          }),
        );
      const ca = fs.readFileSync(files.cert, 'utf8');
      await Promise.all(
        Array.from({ length: connections }, async (_, k) => {
          const bytes = Buffer.concat(Array.from({ length: perConnection }, (__, i) => octetCounted(message(k, i))));
          const client = await connectTcp(drain.port, { tls: { ca } });
          await client.write(bytes);
          await client.end();
        }),
      );
      const deadline = Date.now() + 60_000;
      while (offered < connections * perConnection && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(offered, connections * perConnection);
      // Each connection's messages once each and in their order, whatever the turns mixed.
      for (let k = 0; k < connections; k++) {
        const own = texts.map((t) => / (\d+) (\d+) x+\n?$/.exec(t)).filter((m) => m?.[1] === String(k));
        assert.deepEqual(
          own.map((m) => Number(m?.[2])),
          Array.from({ length: perConnection }, (_, i) => i),
        );
      }
      // One 64 KiB read per connection may come in after the budget is spent, before its pause takes hold.
      const bound = TURN_MESSAGES + connections * Math.ceil((64 * 1024) / octetCounted(message(0, 0)).length);
      assert.ok(mostPerTick <= bound, `${mostPerTick} messages parsed between two timer ticks (bound ${bound})`);
    } finally {
      clearTimeout(ticker);
      await drain.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
