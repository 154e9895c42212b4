// The sample app's data: a small bulletin board (as in the thesis's test app) in its own schema,
// so it never touches paasmon's tables. Seeding drops and recreates only this schema.

export const SCHEMA = 'bulletin_board';

/**
 * @param {import('pg').Pool} pool
 * @param {{ users?: number, posts?: number, comments?: number }} [size]
 */
export async function seedBulletinBoard(pool, { users = 200, posts = 2000, comments = 10_000 } = {}) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await client.query(`CREATE SCHEMA ${SCHEMA}`);
    await client.query(
      `CREATE TABLE ${SCHEMA}.users (id serial PRIMARY KEY, name text NOT NULL, joined_at timestamptz NOT NULL)`,
    );
    await client.query(`CREATE TABLE ${SCHEMA}.posts (id serial PRIMARY KEY, author_id integer NOT NULL REFERENCES ${SCHEMA}.users (id),
      title text NOT NULL, body text NOT NULL, created_at timestamptz NOT NULL)`);
    await client.query(`CREATE TABLE ${SCHEMA}.comments (id serial PRIMARY KEY, post_id integer NOT NULL REFERENCES ${SCHEMA}.posts (id),
      author_id integer NOT NULL REFERENCES ${SCHEMA}.users (id), body text NOT NULL, created_at timestamptz NOT NULL)`);
    await client.query(`CREATE INDEX ON ${SCHEMA}.posts (created_at DESC)`);
    await client.query(`CREATE INDEX ON ${SCHEMA}.comments (post_id)`);
    const start = `timestamptz '2026-01-01T00:00:00Z'`;
    await client.query(
      `INSERT INTO ${SCHEMA}.users (name, joined_at)
      SELECT 'user ' || i, ${start} + i * interval '1 hour' FROM generate_series(1, $1) i`,
      [users],
    );
    await client.query(
      `INSERT INTO ${SCHEMA}.posts (author_id, title, body, created_at)
      SELECT 1 + i % $2, 'Post number ' || i, repeat('Lorem ipsum dolor sit amet. ', 1 + i % 20), ${start} + i * interval '1 minute'
      FROM generate_series(1, $1) i`,
      [posts, users],
    );
    await client.query(
      `INSERT INTO ${SCHEMA}.comments (post_id, author_id, body, created_at)
      SELECT 1 + (i * 7919) % $2, 1 + i % $3, 'Comment ' || i, ${start} + i * interval '10 seconds'
      FROM generate_series(1, $1) i`,
      [comments, posts, users],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
