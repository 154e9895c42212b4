// --keep: what stays up after the demo's runs, and how to reach it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../core/ports.js';
import { onPath } from '../../../sandbox/bulletin-board-java/launch.js';

/** @typedef {ReturnType<typeof import('../../../sandbox/supervisor.js').createSupervisor>} Supervisor */

const PROMETHEUS_DIR = fileURLToPath(new URL('../../../prometheus/', import.meta.url));

/**
 * --keep: everything stays up until Ctrl-C, with Prometheus (the shipped prometheus.yml and rules.yml)
 * scraping collect when it is installed, and the settings Grafana's provisioning reads in a file.
 * @param {{ out: (line: string) => void, env: Record<string, string | undefined>, tmp: string,
 *   supervisor: Supervisor, metricsPort: number, databaseUrl: string, urlFile: string,
 *   routerUrl: string, sleep: (ms: number) => Promise<unknown> }} deps
 */
export async function keepRunning({ out, env, tmp, supervisor, metricsPort, databaseUrl, urlFile, routerUrl, sleep }) {
  const prometheus = onPath('prometheus', env.PATH);
  let prometheusUrl = '';
  if (prometheus) {
    const dir = path.join(tmp, 'prometheus');
    fs.mkdirSync(dir);
    const config = fs.readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config.replace('localhost:9469', `127.0.0.1:${metricsPort}`));
    fs.copyFileSync(path.join(PROMETHEUS_DIR, 'rules.yml'), path.join(dir, 'rules.yml'));
    const port = await freePort();
    const args = [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ];
    const child = supervisor.start('prometheus', prometheus, args, { env: { PATH: env.PATH ?? '' } });
    await Promise.race([sleep(2000), child.exited]);
    if (child.process.exitCode === null) {
      prometheusUrl = `http://127.0.0.1:${port}`;
      out(`prometheus: ${prometheusUrl} (prometheus/prometheus.yml and rules.yml, scraping 127.0.0.1:${metricsPort})`);
    } else {
      out(`prometheus did not start:\n${child.tail()}`);
    }
  } else {
    out('prometheus: not installed, skipped (apt-get install prometheus, then run the demo again with --keep)');
  }
  const db = new URL(databaseUrl);
  const grafanaEnv = path.join(tmp, 'grafana.env');
  const settings = {
    PAASMON_PROMETHEUS_URL: prometheusUrl,
    PAASMON_PG_HOST: `${db.hostname}:${db.port || 5432}`,
    PAASMON_PG_USER: decodeURIComponent(db.username),
    PAASMON_PG_PASSWORD: decodeURIComponent(db.password),
    PAASMON_PG_DATABASE: decodeURIComponent(db.pathname.slice(1)),
    PAASMON_PG_SSLMODE: 'disable',
  };
  const lines = Object.entries(settings).map(([k, v]) => `${k}=${v}\n`);
  fs.writeFileSync(grafanaEnv, lines.join(''), { mode: 0o600 });
  out(`grafana: the provisioning settings (README, "Dashboards") are in ${grafanaEnv}: docker run --env-file it`);
  out(`database: DATABASE_URL is in ${urlFile}`);
  out(
    `more load: DATABASE_URL=$(cat ${urlFile}) npx paasmon loadgen --url ${routerUrl}/api/board ` +
      '--duration 60s --parallel 8',
  );
  out('everything stays up until Ctrl-C');
}
