// One instance of the sample app: HTTP JSON endpoints backed by real PostgreSQL queries. Started
// by sandbox/platform.js as Cloud Foundry starts an instance: PORT, CF_INSTANCE_INDEX and
// DATABASE_URL come from the environment; BULLETIN_BOARD_DELAY_MS, a delay added to every answer but
// /health (`paasmon demo --regression`'s known regression). SIGTERM: stop accepting, finish, exit.
import http from 'node:http';
import pg from 'pg';
import { SCHEMA } from './schema.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
pool.on('error', () => {});
const DELAY_MS = Number(process.env.BULLETIN_BOARD_DELAY_MS ?? 0);

const BOARD = `SELECT p.id, p.title, left(p.body, 120) AS excerpt, p.created_at, u.name AS author, count(c.id)::int AS comments
  FROM ${SCHEMA}.posts p JOIN ${SCHEMA}.users u ON u.id = p.author_id LEFT JOIN ${SCHEMA}.comments c ON c.post_id = p.id
  WHERE p.id IN (SELECT id FROM ${SCHEMA}.posts ORDER BY created_at DESC LIMIT 20)
  GROUP BY p.id, u.name ORDER BY p.created_at DESC`;

/** @param {http.ServerResponse} res @param {number} status @param {unknown} body */
function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** @param {http.IncomingMessage} req */
async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}');
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
async function route(req, res) {
  const url = new URL(req.url ?? '/', 'http://app');
  if (url.pathname === '/health')
    return send(res, 200, { status: 'ok', instance: Number(process.env.CF_INSTANCE_INDEX ?? 0) });
  if (DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
  if (req.method === 'GET' && url.pathname === '/api/board') {
    return send(res, 200, { posts: (await pool.query(BOARD)).rows });
  }
  const post = /^\/api\/posts\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && post) {
    const [found, comments] = await Promise.all([
      pool.query(
        `SELECT p.*, u.name AS author FROM ${SCHEMA}.posts p JOIN ${SCHEMA}.users u ON u.id = p.author_id WHERE p.id = $1`,
        [post[1]],
      ),
      pool.query(
        `SELECT c.id, c.body, c.created_at, u.name AS author FROM ${SCHEMA}.comments c JOIN ${SCHEMA}.users u ON u.id = c.author_id
        WHERE c.post_id = $1 ORDER BY c.created_at`,
        [post[1]],
      ),
    ]);
    if (!found.rows.length) return send(res, 404, { error: 'no such post' });
    return send(res, 200, { ...found.rows[0], comments: comments.rows });
  }
  if (req.method === 'POST' && url.pathname === '/api/posts') {
    const body = await readJson(req);
    if (typeof body.title !== 'string' || typeof body.body !== 'string')
      return send(res, 400, { error: 'title and body are required' });
    const { rows } = await pool.query(
      `INSERT INTO ${SCHEMA}.posts (author_id, title, body, created_at)
      VALUES ((SELECT min(id) FROM ${SCHEMA}.users), $1, $2, now()) RETURNING id`,
      [body.title, body.body],
    );
    return send(res, 201, { id: rows[0].id });
  }
  return send(res, 404, { error: 'not found' });
}

const server = http.createServer((req, res) => {
  route(req, res).catch((err) => send(res, err instanceof SyntaxError ? 400 : 500, { error: err.message }));
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  pool.end().finally(() => process.exit(0));
});
