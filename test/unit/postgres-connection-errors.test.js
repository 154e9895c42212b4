// Which PostgreSQL failures `collect` retries (the database may come back) and which end it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConnectionError } from '../../exporters/postgres/client.js';

/** @param {string} message @param {string} [code] */
const error = (message, code) => Object.assign(new Error(message), code ? { code } : {});

describe('isConnectionError', () => {
  it('is true for failures to reach the server or keep the connection', () => {
    for (const err of [
      error('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      error('getaddrinfo ENOTFOUND db.example.org', 'ENOTFOUND'),
      error('getaddrinfo EAI_AGAIN db.example.org', 'EAI_AGAIN'),
      error('read ECONNRESET', 'ECONNRESET'),
      error('terminating connection due to administrator command', '57P01'),
      error('the database system is shutting down', '57P03'),
      error('connection failure', '08006'),
      error('sorry, too many clients already', '53300'),
      error('canceling statement due to statement timeout', '57014'),
      error('Connection terminated unexpectedly'),
      error('Connection terminated due to connection timeout'),
      error('timeout exceeded when trying to connect'),
      new AggregateError([error('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
    ]) {
      assert.equal(isConnectionError(err), true, `${err.message}`);
    }
  });

  it('is false for what the server refused: retrying fails the same way', () => {
    for (const err of [
      error('relation "instance_samples" already exists', '42P07'),
      error('syntax error at or near "CREAT"', '42601'),
      error('permission denied for schema public', '42501'),
      error('column "x" does not exist', '42703'),
      error('Not run migration 003_x is preceding already run migration 004_y'),
      undefined,
      'a string',
    ]) {
      assert.equal(isConnectionError(err), false, String(/** @type {any} */ (err)?.message ?? err));
    }
  });
});
