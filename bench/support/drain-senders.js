// The drain bench's senders (the syslog agent's ways of delivering, as test/support/syslog-agent-standin.js
// reproduces them) and the CPU time of the processes involved, read from /proc. The syslog agent runs on
// other machines: every body and frame is built before the clock starts, and the senders only write bytes.
import fs from 'node:fs';
import net from 'node:net';
import { once } from 'node:events';
import { batchBodies, connectTcp, octetCounted } from '../../test/support/syslog-agent-standin.js';

/** The agent's MaxConnsPerHost for https-batch, and the bench's number of syslog connections. */
export const CONNECTIONS = 5;
const TICKS_PER_SECOND = 100;
/**
 * Octet-counted messages per write of a syslog connection. BENCH_MESSAGES_PER_WRITE=1 writes as the agent does
 * (tcp.go: one conn.Write per message, so over TLS one record per message); each write then costs this
 * process CPU on the cores the bench measures, which the agent's writes, on other machines, do not.
 */
const MESSAGES_PER_WRITE = Number(process.env.BENCH_MESSAGES_PER_WRITE ?? 2000);

/** utime, stime, cutime, cstime of a process in seconds. @param {number | string} pid */
function statTimes(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // Fields 14-17 of stat(5), i.e. 11-14 after the command name; field 4 (the parent) is 1.
  return {
    parent: Number(fields[1]),
    own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    waited: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

/** CPU seconds (user + system) a running process has used. @param {number} pid */
export const cpuSecondsOf = (pid) => statTimes(pid).own;

/** CPU seconds (user + system) of a running process's main thread. @param {number} pid */
export const mainThreadCpuSecondsOf = (pid) => statTimes(`${pid}/task/${pid}`).own;

/** CPU seconds of this process's children that have exited and been waited for (cutime + cstime). */
export const exitedChildrenCpuSeconds = () => statTimes('self').waited;

/**
 * CPU seconds of a server and its children, those running and those gone (PostgreSQL: the postmaster
 * and its backends).
 * @param {number} pid
 */
export function cpuSecondsOfTree(pid) {
  const { own, waited } = statTimes(pid);
  let total = own + waited;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const child = statTimes(entry);
      if (child.parent === pid) total += child.own;
    } catch {
      // gone meanwhile: its time is in the parent's waited time
    }
  }
  return total;
}

/**
 * https-batch requests, built whole: the agent's bodies of 512 KiB, each behind its request head.
 * @param {string} path e.g. `/drain?token=...` @param {Buffer[]} messages
 */
export function httpsBatchRequests(path, messages) {
  return batchBodies(messages).map((body) =>
    Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      ),
      body,
    ]),
  );
}

/** The agent's retry backoff, shortened as in the stand-in: 10 ms doubling, 500 ms at most. @param {number} n */
const retryDelay = (n) => Math.min(500, 10 * 2 ** n);

/**
 * One keep-alive HTTP/1.1 connection that sends a request and reads its status (one at a time, as Go's client).
 * @param {number} port
 */
async function httpConnection(port) {
  const socket = net.connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  /** @type {{ resolve: (status: number) => void, reject: (err: Error) => void } | undefined} */
  let waiting;
  const answer = () => {
    const headEnd = received.indexOf('\r\n\r\n');
    if (!waiting || headEnd < 0) return;
    const head = received.toString('latin1', 0, headEnd);
    let end = headEnd + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = received.indexOf('0\r\n\r\n', headEnd + 4);
      if (last < 0) return;
      end = last + 5;
    }
    if (received.length < end) return;
    received = received.subarray(end);
    const { resolve } = waiting;
    waiting = undefined;
    resolve(Number(head.slice(9, 12)));
  };
  socket.on('data', (chunk) => {
    received = received.length ? Buffer.concat([received, chunk]) : chunk;
    answer();
  });
  socket.on('error', () => {});
  socket.on('close', () => waiting?.reject(new Error('connection closed')));
  return {
    get open() {
      return !socket.destroyed;
    },
    /** @param {Buffer} request @returns {Promise<number>} the status */
    send: (request) =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(request);
      }),
    async close() {
      if (socket.destroyed) return;
      socket.end();
      await once(socket, 'close');
    },
  };
}

/**
 * https-batch: CONNECTIONS keep-alive connections, each sending the next request when the last was
 * answered; anything but a 2xx (a 503 when the buffer is full, a closed connection) is sent again
 * after a backoff, as the agent's retry writer does.
 * @param {number} port @param {Buffer[]} requests httpsBatchRequests(...)
 * @returns {Promise<string>} what happened, for the output
 */
export async function sendHttpsBatch(port, requests) {
  let refused = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      let connection = await httpConnection(port);
      while (next < requests.length) {
        const request = requests[next++];
        for (let attempt = 0; ; attempt++) {
          if (!connection.open) connection = await httpConnection(port);
          const status = await connection.send(request).catch(() => 0);
          if (status >= 200 && status <= 299) break;
          if (status === 503) refused += 1;
          await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt)));
        }
      }
      await connection.close();
    }),
  );
  return `${requests.length} bodies, ${refused} answered 503 and resent`;
}

/**
 * syslog:// or syslog-tls:// octet counting, built whole: one connection per 1/CONNECTIONS of the
 * messages (the agent holds one per drain and app), MESSAGES_PER_WRITE messages per write.
 * @param {Buffer[]} messages @returns {Buffer[][]} the writes of each connection
 */
export function octetCountedWrites(messages) {
  const per = Math.ceil(messages.length / CONNECTIONS);
  return Array.from({ length: CONNECTIONS }, (_, k) => {
    const slice = messages.slice(k * per, (k + 1) * per);
    /** @type {Buffer[]} */
    const writes = [];
    for (let i = 0; i < slice.length; i += MESSAGES_PER_WRITE)
      writes.push(Buffer.concat(slice.slice(i, i + MESSAGES_PER_WRITE).map(octetCounted)));
    return writes;
  });
}

/**
 * Writes each connection's octet-counted writes, the next once the last was taken.
 * @param {number} port @param {Buffer[][]} writes octetCountedWrites(...) @param {{ tls?: { ca: string } }} [options]
 * @returns {Promise<string>}
 */
export async function sendOctetCounted(port, writes, options = {}) {
  await Promise.all(
    writes.map(async (ofConnection) => {
      const connection = await connectTcp(port, options);
      for (const bytes of ofConnection) await connection.write(bytes);
      await connection.end();
    }),
  );
  return `${writes.length} connections`;
}
