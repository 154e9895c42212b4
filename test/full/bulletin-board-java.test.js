// The Java sample app answers like the Node.js one: every endpoint, byte for byte and status for
// status, on the same seed data in a real PostgreSQL (escaping, timestamps, 404s, bad input).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { seedBulletinBoard } from '../../sandbox/bulletin-board/schema.js';
import { compileJavaApp, findJava, javaAppArgs } from '../../sandbox/bulletin-board-java/launch.js';
import { freePort, startTestDatabase } from '../support/database.js';
import { waitFor } from '../support/cli.js';

const NODE_APP = fileURLToPath(new URL('../../sandbox/bulletin-board/server.js', import.meta.url));

/** @param {string} command @param {string[]} args @param {Record<string, string>} env */
async function startApp(command, args, env) {
  const port = await freePort();
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), CF_INSTANCE_INDEX: '3' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok, {
    timeoutMs: 60_000,
    what: `${command} app to answer`,
  });
  return { url, child };
}

/** @param {string} base @param {string} target @param {{ method?: string, body?: string }} [init] */
async function answer(base, target, init = {}) {
  const response = await fetch(`${base}${target}`, { method: init.method ?? 'GET', body: init.body });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()).toString('utf8'),
  };
}

describe('the Java sample app', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Array<Awaited<ReturnType<typeof startApp>>>} */
  const apps = [];
  const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-java-app-'));
  /** @type {string} */ let node;
  /** @type {string} */ let java;

  before(async () => {
    const tools = findJava(process.env);
    assert.equal(tools.missing, undefined, 'a JDK and the JDBC driver are installed here (.ci/run)');
    if (tools.missing) return;
    db = await startTestDatabase();
    await seedBulletinBoard(db.pool);
    // What JSON.stringify must escape, and a timestamp with microseconds (Date keeps milliseconds).
    await db.query(`UPDATE bulletin_board.users SET name = $1 WHERE id = 2`, [
      'quote " back \\ tab\t nl\n cr\r ctl \u0001\u001f é 😀 \u2028 </script>',
    ]);
    await db.query(`UPDATE bulletin_board.comments SET created_at = '2026-05-05 12:34:56.789999+00' WHERE id = 7`);
    await compileJavaApp(tools, classes);
    const env = { DATABASE_URL: db.url };
    apps.push(await startApp(process.execPath, [NODE_APP], env));
    apps.push(await startApp(tools.java, javaAppArgs(tools, classes), env));
    [node, java] = apps.map((a) => a.url);
  });
  after(async () => {
    for (const app of apps) {
      app.child.kill('SIGTERM');
      if (app.child.exitCode === null && app.child.signalCode === null)
        await new Promise((r) => app.child.once('exit', r));
    }
    await db?.stop();
    fs.rmSync(classes, { recursive: true, force: true });
  });

  it('answers every read endpoint byte for byte like the Node.js app', async () => {
    const comment = (await db.query('SELECT post_id FROM bulletin_board.comments WHERE id = 7')).rows[0].post_id;
    const targets = [
      '/health',
      '/health?probe=1',
      '/api/board',
      '/api/board?page=2',
      '/api/posts/1',
      `/api/posts/${comment}`,
      '/api/posts/2000',
      '/api/posts/0',
      '/api/posts/999999',
      '/api/posts/99999999999',
      '/api/posts/abc',
      '/api/posts/',
      '/nothing',
      '/api/x/../board',
    ];
    for (const target of targets) {
      const expected = await answer(node, target);
      assert.deepEqual(await answer(java, target), expected, `GET ${target}`);
    }
    for (const [method, target] of [
      ['POST', '/api/board'],
      ['DELETE', '/api/posts/1'],
      ['PUT', '/api/posts'],
    ]) {
      assert.deepEqual(
        await answer(java, target, { method }),
        await answer(node, target, { method }),
        `${method} ${target}`,
      );
    }
    const board = JSON.parse((await answer(java, '/api/board')).body);
    assert.equal(board.posts.length, 20);
    assert.equal(JSON.parse((await answer(java, '/health')).body).instance, 3);
    const post = JSON.parse((await answer(java, `/api/posts/${comment}`)).body);
    assert.ok(post.comments.some((/** @type {any} */ c) => c.created_at === '2026-05-05T12:34:56.789Z'));
  });

  it('creates posts as the Node.js app does, and refuses the same bad bodies', async () => {
    const text = JSON.stringify({
      title: 'T "1" \\ é 😀 \u2028',
      body: 'line\nnext\t\u0007 \ud83d\ude00',
      extra: [1, 2.5e3, null, true],
    });
    for (const app of [node, java]) {
      // Both apps insert the same next id: the row the other one made is gone again.
      await db.query('DELETE FROM bulletin_board.posts WHERE id > 2000');
      await db.query(`SELECT setval('bulletin_board.posts_id_seq', 2000)`);
      const created = await answer(app, '/api/posts', { method: 'POST', body: text });
      assert.deepEqual(created, { status: 201, type: 'application/json', body: '{"id":2001}' }, app);
      assert.deepEqual(await answer(java, '/api/posts/2001'), await answer(node, '/api/posts/2001'));
      assert.deepEqual(await answer(java, '/api/board'), await answer(node, '/api/board'));
    }
    const stored = (await db.query('SELECT title, body FROM bulletin_board.posts WHERE id = 2001')).rows[0];
    assert.deepEqual(stored, { title: 'T "1" \\ é 😀 \u2028', body: 'line\nnext\t\u0007 😀' });
    for (const body of [
      '',
      '{}',
      '[]',
      '""',
      '5',
      'null',
      '{"title":1,"body":"b"}',
      '{"title":"a"}',
      ' {"title":"a","body":2} ',
    ]) {
      const expected = await answer(node, '/api/posts', { method: 'POST', body });
      assert.deepEqual(
        await answer(java, '/api/posts', { method: 'POST', body }),
        expected,
        `POST ${JSON.stringify(body)}`,
      );
    }
    // Malformed JSON: both 400 with an error; the message itself is the JSON parser's own wording.
    for (const body of [
      '{bad',
      '{"title":"a",}',
      '{"title":01}',
      '{"a":"\u0001"}',
      ' ',
      '{"title":"a","body":"b"} x',
    ]) {
      const [fromNode, fromJava] = await Promise.all(
        [node, java].map((app) => answer(app, '/api/posts', { method: 'POST', body })),
      );
      assert.equal(fromNode.status, 400, `node: ${JSON.stringify(body)}`);
      assert.equal(fromJava.status, 400, `java: ${JSON.stringify(body)} ${fromJava.body}`);
      assert.equal(typeof JSON.parse(fromJava.body).error, 'string');
    }
  });
});
