// How the simulator answers: JSON bodies, and the v3 error envelope.

/**
 * What every route handler shares: the fault switches, the request counters, the served apps and the
 * server's own base URL (known once it listens).
 * @typedef {object} SimulatorContext
 * @property {import('./fixtures.js').Faults} faults
 * @property {{ requests: number, statsRequests: number, grants: Record<string, number>,
 *   byPath: Record<string, number> }} counters
 * @property {{ apps: import('./fixtures.js').AppSpec[] }} state
 * @property {string} base
 */

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
export const send = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** @param {string} title @param {number} code @param {string} detail */
export const v3Error = (title, code, detail) => ({ errors: [{ code, title, detail }] });
