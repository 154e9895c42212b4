// The demo's services before the runs: PostgreSQL (migrated, sample data seeded), the platform
// stand-in (app instances, gorouter, Cloud Controller + UAA) and `paasmon collect` polling it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../exporters/postgres/database.js';
import { embeddedUrl } from '../../../exporters/postgres/embedded/server.js';
import { migrate } from '../../../exporters/postgres/schema/migrate.js';
import { seedBulletinBoard } from '../../../sandbox/bulletin-board/schema.js';
import { startPlatformChild } from '../../../sandbox/platform.js';
import { START_TIMEOUT_MS } from './runs.js';

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));

/**
 * @param {object} deps
 * @param {import('../../config/index.js').Config} deps.config
 * @param {import('pino').Logger} deps.log
 * @param {(line: string) => void} deps.out
 * @param {string} deps.app
 * @param {string} deps.tmp
 * @param {Record<string, string>} deps.baseEnv PATH, HOME and the correlation header of every child
 * @param {Record<string, string>} deps.platformSettings CORES_PER_INSTANCE and where the Java app is
 * @param {() => Promise<import('../../../exporters/postgres/embedded/server.js').EmbeddedServer>} deps.startEmbedded
 * @param {ReturnType<typeof import('../../../sandbox/supervisor.js').createSupervisor>} deps.supervisor
 * @param {<T>(promise: Promise<T>) => Promise<T>} deps.unlessInterrupted
 * @param {(database: import('../../../exporters/postgres/database.js').Database) => void} deps.setDatabase
 */
export async function startServices(deps) {
  const { config, log, out, app, tmp, baseEnv, supervisor, unlessInterrupted } = deps;
  out(`[1/5] PostgreSQL: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded server in a temporary directory'}`);
  const databaseUrl = config.databaseUrl ?? embeddedUrl(await unlessInterrupted(deps.startEmbedded()));
  const database = await unlessInterrupted(openDatabase({ ...config, databaseUrl }, { log }));
  deps.setDatabase(database);
  const pool = database.pool;
  await unlessInterrupted(migrate(pool, log));
  await unlessInterrupted(seedBulletinBoard(pool));
  const urlFile = path.join(tmp, 'database-url');
  fs.writeFileSync(urlFile, `${databaseUrl}\n`, { mode: 0o600 });

  out('[2/5] platform stand-in: app instances, gorouter (access log) and Cloud Controller + UAA');
  const accessLog = path.join(tmp, 'gorouter-access.log');
  fs.writeFileSync(accessLog, '');
  const cfPassword = crypto.randomBytes(12).toString('base64url');
  const platformEnv = {
    ...baseEnv,
    ...deps.platformSettings,
    DATABASE_URL: databaseUrl,
    ROUTER_LOG_FILE: accessLog,
    PLATFORM_APP_NAME: app,
    CF_USERNAME: 'demo',
    CF_PASSWORD: cfPassword,
  };
  const platform = await unlessInterrupted(startPlatformChild(supervisor, platformEnv, START_TIMEOUT_MS));
  out(`      router ${platform.routerUrl}, Cloud Controller ${platform.apiUrl}`);

  out('[3/5] paasmon collect: polls the Cloud Controller every second, follows the router log');
  const collect = supervisor.start('collect', CLI, ['collect'], {
    essential: true,
    env: {
      ...baseEnv,
      DATABASE_URL: databaseUrl,
      CF_API: platform.apiUrl,
      CF_USERNAME: 'demo',
      CF_PASSWORD: cfPassword,
      CF_APPS: app,
      POLL_SCHEDULE: '* * * * * *',
      INGEST_SCHEDULE: '* * * * * *',
      ROUTER_LOG_FILE: accessLog,
      ROUTER_LOG_FILE_APP: app,
      PORT: '0',
      LOG_LEVEL: 'info',
    },
  });
  const metricsPort = Number(
    (await unlessInterrupted(collect.waitForOutput(/"port":(\d+),"schedule"/, START_TIMEOUT_MS)))[1],
  );
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  out(`      ${metricsUrl}`);
  return { pool, databaseUrl, urlFile, platform, collect, metricsPort, metricsUrl };
}
