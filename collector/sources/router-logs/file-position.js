// Where a followed log file was read up to, and whether that place still exists: a checkpoint of
// `<inode>:<offset>:<fingerprint>`. A file replaced (another inode), shorter than the offset, or
// whose first bytes changed (rotated by copy-and-truncate, then grown again) is read from its start.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** The bytes a fingerprint covers at most, as log shippers take (Filebeat's fingerprint: 1024). */
export const FINGERPRINT_BYTES = 1024;

/**
 * `<length>-<sha256 of the first length bytes, 16 hex>`.
 * @param {Buffer} head @param {number} length
 */
function fingerprintOf(head, length) {
  return `${length}-${createHash('sha256').update(head.subarray(0, length)).digest('hex').slice(0, 16)}`;
}

/**
 * The file now (inode, size, first bytes) and where to resume in it from `checkpoint`: its offset
 * when the file is the one it was taken from, else 0. A checkpoint without a fingerprint
 * (`<inode>:<offset>`, before copy-and-truncate was detected) is trusted on inode and size alone.
 * @param {string} file @param {string | undefined} checkpoint
 * @returns {Promise<{ size: number, offset: number, position: (end: number) => string }>} `position`:
 *   the checkpoint for a read that reached `end`
 */
export async function resumePosition(file, checkpoint) {
  const handle = await fs.promises.open(file, 'r');
  /** @type {Buffer} */
  let head;
  /** @type {import('node:fs').Stats} */
  let stats;
  try {
    stats = await handle.stat();
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(FINGERPRINT_BYTES), 0, FINGERPRINT_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const { ino, size } = stats;
  const [inode, offset, fingerprint] = (checkpoint ?? '').split(':');
  const length = fingerprint ? Number(fingerprint.split('-')[0]) : 0;
  const sameFile =
    Number(inode) === ino &&
    Number(offset) <= size &&
    (!fingerprint || (length <= head.length && fingerprintOf(head, length) === fingerprint));
  return {
    size,
    offset: sameFile ? Number(offset) : 0,
    position: (end) => `${ino}:${end}:${fingerprintOf(head, Math.min(end, head.length))}`,
  };
}
