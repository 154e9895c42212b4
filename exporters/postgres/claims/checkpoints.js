// Where each incremental reader stands (a router-log index, a file): read before a window, moved
// inside the transaction of the page it follows.
import { fenceCheckpoint } from './claims.js';

/** @param {import('pg').Pool} pool @param {string} source @returns {Promise<string | undefined>} */
export async function readCheckpoint(pool, source) {
  const { rows } = await pool.query('SELECT position FROM ingest_checkpoints WHERE source = $1', [source]);
  return rows[0]?.position;
}

/** @param {import('pg').PoolClient} client @param {{ source: string, position: string }} checkpoint */
export async function saveCheckpoint(client, checkpoint) {
  await fenceCheckpoint(client);
  await client.query(
    `INSERT INTO ingest_checkpoints (source, position, updated_at) VALUES ($1, $2, now())
      ON CONFLICT (source) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
    [checkpoint.source, checkpoint.position],
  );
}
