// Source `syslog-drain`: Cloud Foundry pushes every bound app's logs here (HTTPS on the collector's
// own port, or TCP/TLS on DRAIN_TCP_PORT); RTR lines become router requests, pushed into the
// pipeline's page path (core/types.js OpenIntake).
import { ConfigError } from '../../../core/errors.js';
import { headerLogField } from '../gorouter/correlation-ids.js';
import { createDrainHandler } from './http.js';
import { createDrainReceiver } from './receiver.js';
import { startTcpDrain } from './tcp.js';

/**
 * Checks the drain settings without starting anything; true when a drain is configured.
 * @param {import('../../config/index.js').Config} config
 */
export function drainConfigured(config) {
  const { drain } = config;
  if (Boolean(drain.tlsCert) !== Boolean(drain.tlsKey)) {
    const missing = drain.tlsCert ? 'DRAIN_TLS_KEY' : 'DRAIN_TLS_CERT';
    throw new ConfigError(
      `${missing} is required with ${missing === 'DRAIN_TLS_KEY' ? 'DRAIN_TLS_CERT' : 'DRAIN_TLS_KEY'}`,
      { variable: missing },
    );
  }
  if (drain.tlsCert && drain.tcpPort === undefined) {
    throw new ConfigError('DRAIN_TCP_PORT is required with DRAIN_TLS_CERT: the port of the syslog-tls:// drain', {
      variable: 'DRAIN_TCP_PORT',
    });
  }
  return Boolean(drain.token || drain.tcpPort !== undefined);
}

/**
 * @param {import('../../config/index.js').Config} config
 * @param {object} deps
 * @param {import('../../../core/types.js').OpenIntake} deps.openIntake where the records go (the pipeline's)
 * @param {import('pino').Logger} deps.log
 * @param {import('./receiver.js').DrainMetrics} [deps.metrics]
 */
export async function startDrain(config, { openIntake, log, metrics }) {
  const drainLog = log.child({ source: 'syslog-drain' });
  const receiver = createDrainReceiver({
    openIntake,
    maxBuffered: config.drain.bufferRecords,
    correlationField: headerLogField(config.correlationHeader),
    log: drainLog,
    metrics,
  });
  const handler = config.drain.token
    ? createDrainHandler({ token: config.drain.token, receiver, log: drainLog })
    : undefined;
  const tcp =
    config.drain.tcpPort === undefined
      ? undefined
      : await startTcpDrain({
          port: config.drain.tcpPort,
          tls:
            config.drain.tlsCert && config.drain.tlsKey
              ? { cert: config.drain.tlsCert, key: config.drain.tlsKey }
              : undefined,
          receiver,
          log: drainLog,
        }).catch(async (err) => {
          await receiver.close();
          throw err;
        });
  return {
    name: 'syslog-drain',
    receiver,
    /** POST /drain, when DRAIN_TOKEN is set. */
    handler,
    /** The TCP/TLS port actually bound (DRAIN_TCP_PORT=0 picks one). */
    tcpPort: tcp?.port,
    /** For /healthz. */
    health: () => ({
      ...receiver.state(),
      http: Boolean(handler),
      tcpPort: tcp?.port ?? null,
      tls: Boolean(config.drain.tlsCert),
    }),
    /** Stops listening first, then writes what is buffered. */
    async stop() {
      await tcp?.close();
      await receiver.close();
    },
  };
}

/**
 * The drain as `collect` starts it, with the pipeline's intake.
 * @param {import('../../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, drainMetrics?: import('./receiver.js').DrainMetrics }} deps
 */
export function drainJobSource(config, { log, drainMetrics }) {
  return {
    name: 'syslog-drain',
    /** @param {import('../../../core/types.js').OpenIntake} openIntake */
    start: (openIntake) => startDrain(config, { openIntake, log, metrics: drainMetrics }),
  };
}

/** @typedef {Awaited<ReturnType<typeof startDrain>>} Drain */
