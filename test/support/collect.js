// `paasmon collect` as a process against the Cloud Controller simulator and a test database.
import { SPACE_GUID } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from './cli.js';

/**
 * The environment of a collector watching the simulator's space, on any free port.
 * @param {{ url: string }} db @param {{ url: string }} sim @param {Record<string, string>} [env] more or other settings
 */
export function collectEnv(db, sim, env = {}) {
  return {
    DATABASE_URL: db.url,
    CF_API: sim.url,
    CF_USERNAME: 'admin',
    CF_PASSWORD: 'admin-secret',
    CF_SPACE_GUID: SPACE_GUID,
    // No Cloud Controller poll during a test (once a year): its samples would mix with the ones under test.
    POLL_SCHEDULE: '0 0 0 1 1 *',
    PORT: '0',
    ...env,
  };
}

/**
 * Starts `paasmon collect` and waits until it listens.
 * @param {Record<string, string>} env @param {Parameters<typeof startCli>[2]} [options]
 * @returns {Promise<{ cli: ReturnType<typeof startCli>, base: string, drainTcpPort: number | undefined }>}
 */
export async function startCollect(env, options) {
  const cli = startCli(['collect'], env, options);
  const line = await waitFor(() => /"port":\d+,"schedule".*"msg":"collect: started"/.exec(cli.output.stderr)?.[0], {
    what: `collect to listen\n${cli.output.stderr}`,
  });
  const port = Number(/"port":(\d+)/.exec(line)?.[1]);
  const drainTcpPort = /"drainTcpPort":(\d+)/.exec(line)?.[1];
  return { cli, base: `http://127.0.0.1:${port}`, drainTcpPort: drainTcpPort ? Number(drainTcpPort) : undefined };
}
