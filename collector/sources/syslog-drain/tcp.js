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
/**
 * Messages read from all connections in one event-loop turn, at most, before their reading pauses until the next
 * turn: a turn that parses many TLS reads in a row keeps the PostgreSQL writer's replies unread, and the pages wait.
 */
export const TURN_MESSAGES = 500;

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
  const turns = createReadTurns(receiver, TURN_MESSAGES);

  /** @param {net.Socket} socket */
  const onConnection = (socket) => {
    sockets.add(socket);
    const framer = createOctetCountingFramer({ maxMessageBytes: MAX_MESSAGE_BYTES });
    const connection = turns.connection(socket);
    const reject = (/** @type {string} */ reason) => receiver.rejectFrame(reason);
    socket.on('data', (chunk) => {
      framer.read(chunk, connection.take, reject);
      connection.read();
    });
    socket.on('error', (err) => log.debug({ err }, 'drain: tcp connection error'));
    socket.on('close', () => {
      connection.close();
      sockets.delete(socket);
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
 * The reads of a turn, all connections' messages offered at its end in one offer (TLS hands over a read per
 * 16 KiB record; each connection's messages stay in their order). A connection that reads once the turn holds
 * `turnMessages` messages, or more than the receiver has room for, pauses: it resumes next turn, or once there
 * is room.
 * @param {import('./receiver.js').DrainReceiver} receiver @param {number} turnMessages
 */
function createReadTurns(receiver, turnMessages) {
  /** @type {string[]} */
  let messages = [];
  /** @type {Set<net.Socket>} paused until the next turn */
  const held = new Set();
  /** @type {Set<net.Socket>} paused until the receiver has room */
  const waitingForRoom = new Set();
  /** @type {NodeJS.Immediate | undefined} */
  let ending;
  const endTurn = () => {
    clearImmediate(ending);
    ending = undefined;
    const gathered = messages;
    messages = [];
    if (gathered.length) receiver.offer(gathered);
    const full = receiver.room === 0;
    for (const socket of held) {
      if (socket.destroyed) continue;
      if (full) waitingForRoom.add(socket);
      else socket.resume();
    }
    held.clear();
  };
  receiver.onRoom(() => {
    for (const socket of waitingForRoom) socket.resume();
    waitingForRoom.clear();
  });
  /** @param {string} text */
  const take = (text) => void messages.push(text);
  return {
    /** @param {net.Socket} socket */
    connection(socket) {
      return {
        take,
        /** After each read: the turn ends once the event loop has read what is ready. */
        read() {
          const taken = messages.length;
          if ((taken >= turnMessages || receiver.room <= taken) && !socket.destroyed && !held.has(socket)) {
            socket.pause();
            held.add(socket);
          }
          ending ??= setImmediate(endTurn);
        },
        /** Its messages are offered now, with the rest of the turn's. */
        close() {
          if (ending) endTurn();
          held.delete(socket);
          waitingForRoom.delete(socket);
        },
      };
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
