// The drain bench's senders (the syslog agent's three ways of delivering, as test/support/syslog-agent-standin.js
// reproduces them) and the CPU time of the processes involved, read from /proc.
import fs from 'node:fs';
import { batchBodies, connectTcp, octetCounted, postUntilAccepted } from '../../test/support/syslog-agent-standin.js';

/** The agent's MaxConnsPerHost for https-batch, and the bench's number of syslog connections. */
export const CONNECTIONS = 5;
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a running process has used. @param {number} pid */
export function cpuSecondsOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), i.e. 11 and 12 after the command name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of this process's children that have exited and been waited for (cutime + cstime). */
export function exitedChildrenCpuSeconds() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/**
 * https-batch: bodies of 512 KiB, CONNECTIONS in flight; a 503 (buffer full) is resent.
 * @param {string} url @param {Buffer[]} messages @returns {Promise<string>} what happened, for the output
 */
export async function sendHttpsBatch(url, messages) {
  const bodies = batchBodies(messages);
  let refused = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length)
        await postUntilAccepted(url, bodies[next++], {
          onStatus: (s) => {
            if (s === 503) refused += 1;
          },
        });
    }),
  );
  return `${bodies.length} bodies, ${refused} answered 503 and resent`;
}

/**
 * syslog:// or syslog-tls:// octet counting, one connection per 1/CONNECTIONS of the messages
 * (the agent holds one per drain and app), written 2000 messages at a time.
 * @param {number} port @param {Buffer[]} messages @param {{ tls?: { ca: string } }} [options]
 * @returns {Promise<string>}
 */
export async function sendOctetCounted(port, messages, options = {}) {
  const per = Math.ceil(messages.length / CONNECTIONS);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, k) => {
      const connection = await connectTcp(port, options);
      const slice = messages.slice(k * per, (k + 1) * per);
      for (let i = 0; i < slice.length; i += 2000)
        await connection.write(Buffer.concat(slice.slice(i, i + 2000).map(octetCounted)));
      await connection.end();
    }),
  );
  return `${CONNECTIONS} connections`;
}
