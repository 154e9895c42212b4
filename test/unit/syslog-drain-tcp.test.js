// syslog-tls:// (collector/sources/syslog-drain/tcp.js) over a real TLS listener with a stand-in
// receiver: TLS hands over one read per 16 KiB record, and the messages of the reads of one turn are
// offered together, each exactly once and in order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { startTcpDrain } from '../../collector/sources/syslog-drain/tcp.js';
import { selfSignedCertificate } from '../support/certificate.js';
import { connectTcp, logMessage, octetCounted, rtrEnvelope } from '../support/syslog-agent-standin.js';

const MESSAGES = 1500;
const TLS_RECORD_BYTES = 16 * 1024;

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
    const files = selfSignedCertificate(dir, 'drain');
    const drain = await startTcpDrain({
      port: 0,
      host: '127.0.0.1',
      tls: files,
      receiver: /** @type {any} */ (receiver),
      log: pino({ level: 'silent' }),
    });
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
