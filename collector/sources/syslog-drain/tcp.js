// syslog:// and syslog-tls:// drains: RFC 6587 octet-counted messages over TCP or TLS (tcp.go,
// tls.go). No token on this path: bind it to a private network, or use TLS. When the buffer is
// full, reading stops (TCP back-pressure reaches the agent's write timeout, and it retries).
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';
import { ConfigError } from '../../../core/errors.js';
import { createOctetCountingFramer } from './rfc5424.js';
import { DRAIN } from '../../../core/reason-codes.js';

/** Larger than any gorouter line with many logged headers; a longer frame is skipped and counted. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Messages of a connection gathered at most before they are offered (else at the end of the turn). */
const OFFER_MESSAGES = 2000;

/**
 * @param {object} options
 * @param {number} options.port 0 for any free port
 * @param {string} [options.host]
 * @param {{ cert: string, key: string }} [options.tls] PEM text or file paths
 * @param {import('./receiver.js').DrainReceiver} options.receiver
 * @param {import('pino').Logger} options.log
 */
export async function startTcpDrain({ port, host, tls: tlsFiles, receiver, log }) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  /** @type {Set<net.Socket>} */
  const paused = new Set();
  receiver.onRoom(() => {
    for (const socket of paused) socket.resume();
    paused.clear();
  });

  /** @param {net.Socket} socket */
  const onConnection = (socket) => {
    sockets.add(socket);
    const framer = createOctetCountingFramer({ maxMessageBytes: MAX_MESSAGE_BYTES });
    // The messages of this turn's reads, offered together: TLS hands over a read per 16 KiB record.
    /** @type {string[]} */
    let messages = [];
    /** @type {NodeJS.Immediate | undefined} */
    let offering;
    const take = (/** @type {string} */ text) => void messages.push(text);
    const reject = (/** @type {string} */ reason) => receiver.rejectFrame(reason);
    const offerGathered = () => {
      clearImmediate(offering);
      offering = undefined;
      const gathered = messages;
      messages = [];
      if (gathered.length) receiver.offer(gathered);
      if (receiver.room === 0 && !socket.destroyed) {
        socket.pause();
        paused.add(socket);
      }
    };
    socket.on('data', (chunk) => {
      framer.read(chunk, take, reject);
      if (messages.length >= OFFER_MESSAGES || receiver.room <= messages.length) offerGathered();
      else offering ??= setImmediate(offerGathered);
    });
    socket.on('error', (err) => log.debug({ err }, 'drain: tcp connection error'));
    socket.on('close', () => {
      if (offering) offerGathered();
      sockets.delete(socket);
      paused.delete(socket);
      if (framer.buffered > 0) receiver.rejectFrame(DRAIN.INCOMPLETE_FRAME);
    });
  };

  const server = tlsFiles ? tls.createServer(readTlsFiles(tlsFiles), onConnection) : net.createServer(onConnection);
  server.listen(port, host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([err]) => {
      throw err;
    }),
  ]);
  const address = /** @type {net.AddressInfo} */ (server.address());
  log.info({ port: address.port, tls: Boolean(tlsFiles) }, 'drain: listening for syslog over TCP');
  return {
    port: address.port,
    async close() {
      server.close();
      for (const socket of sockets) socket.destroy();
      await once(server, 'close').catch(() => {});
    },
  };
}

/**
 * Each of DRAIN_TLS_CERT and DRAIN_TLS_KEY is PEM text (handy in a user-provided service) or a file.
 * @param {{ cert: string, key: string }} pems
 */
function readTlsFiles({ cert, key }) {
  /** @param {string} value @param {string} variable */
  const read = (value, variable) => {
    if (value.includes('-----BEGIN')) return value;
    try {
      return fs.readFileSync(value, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `${variable} is neither PEM text nor a readable file (${/** @type {any} */ (err).code ?? err})`,
        { variable, cause: err },
      );
    }
  };
  return { cert: read(cert, 'DRAIN_TLS_CERT'), key: read(key, 'DRAIN_TLS_KEY') };
}
