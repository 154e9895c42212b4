// `paasmon drain setup`: the cf commands that make the collector a syslog drain of the apps.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { ConfigError } from '../../core/errors.js';

/**
 * @typedef {{ app: string[], url?: string, tcp?: string, ca?: string, batch?: boolean, service: string,
 *   apply?: boolean }} DrainSetupFlags batch: false (--no-batch) for https:// instead of https-batch://
 * @typedef {{ shown: string, real: string, notes: string[] }} DrainUrl
 */

/** The loggregator-agent-release that brought https-batch://, and the one that fixed its deadlock (#648). */
export const HTTPS_BATCH_SINCE = 'v8.3.0';
export const HTTPS_BATCH_FIXED = 'v8.3.6';

/**
 * The drain URL the agent will post to: `--url` (the collector's route), or the first route of the
 * app this runs in, as https-batch:// (https:// with --no-batch). `--tcp host:port` makes a TCP drain
 * instead: syslog-tls:// when the collector's TCP listener has TLS (DRAIN_TLS_CERT), else syslog://.
 * @param {DrainSetupFlags} flags
 * @param {{ token?: string, tlsCert?: string }} drain the collector's DRAIN_TOKEN and DRAIN_TLS_CERT
 * @param {string[]} appRoutes
 * @returns {DrainUrl} the URL with $DRAIN_TOKEN for printing, with the token for --apply, and what to know
 */
export function drainUrl(flags, drain, appRoutes) {
  if (flags.tcp) return tcpDrainUrl(flags, drain);
  if (flags.ca)
    throw new ConfigError("--ca goes with --tcp: the https drain uses the route's certificate", { variable: '--ca' });
  let base = flags.url ?? appRoutes[0];
  if (!base)
    throw new ConfigError("--url is required: the collector's route, e.g. https://paasmon.apps.example.com", {
      variable: '--url',
    });
  if (!/^https?:\/\//.test(base)) base = `https://${base}`;
  let parsed;
  try {
    parsed = new URL(base);
  } catch {
    throw new ConfigError(`--url is not a URL: ${JSON.stringify(base)}`, { variable: '--url' });
  }
  if (parsed.protocol !== 'https:')
    throw new ConfigError('--url must be https://: the token travels in the drain URL', { variable: '--url' });
  if (!drain.token)
    throw new ConfigError(
      'DRAIN_TOKEN is required (the same value the collector runs with; e.g. openssl rand -hex 32)',
      { variable: 'DRAIN_TOKEN' },
    );
  const batch = flags.batch !== false;
  const scheme = batch ? 'https-batch' : 'https';
  const path = `${parsed.host}${parsed.pathname.replace(/\/+$/, '')}/drain?token=`;
  const notes = batch
    ? [
        `# https-batch:// (many messages per POST) needs loggregator-agent-release ${HTTPS_BATCH_SINCE} or newer ` +
          `(${HTTPS_BATCH_FIXED} fixes a deadlock); older agents drain nothing: use --no-batch there.`,
      ]
    : ['# https:// sends one POST per message: fine for light traffic; a load test wants https-batch://.'];
  return {
    shown: `${scheme}://${path}$DRAIN_TOKEN`,
    real: `${scheme}://${path}${encodeURIComponent(drain.token)}`,
    notes,
  };
}

/**
 * @param {DrainSetupFlags} flags @param {{ tlsCert?: string }} drain
 * @returns {DrainUrl}
 */
function tcpDrainUrl(flags, drain) {
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(flags.tcp ?? ''))
    throw new ConfigError(`--tcp must be host:port, got ${JSON.stringify(flags.tcp)}`, { variable: '--tcp' });
  const tls = Boolean(drain.tlsCert);
  if (flags.ca && !tls)
    throw new ConfigError('--ca needs DRAIN_TLS_CERT: a plain syslog:// drain has no certificate to check', {
      variable: '--ca',
    });
  const url = `${tls ? 'syslog-tls' : 'syslog'}://${flags.tcp}`;
  const notes = tls
    ? [
        `# syslog-tls://: the agent checks the collector's certificate and that it names ${flags.tcp?.split(':')[0]};` +
          (flags.ca ? ' --ca gives it the CA.' : ' signed by a private CA, add --ca with that CA.'),
      ]
    : [
        '# syslog:// (plain TCP, no token): DRAIN_TLS_CERT is not set where this runs. Anyone who reaches the',
        '# route can send lines; give the collector DRAIN_TLS_CERT and DRAIN_TLS_KEY for syslog-tls://.',
      ];
  return { shown: url, real: url, notes };
}

/**
 * The commands, each as argv (with the real URL) and as a line to print (without the token).
 * @param {DrainSetupFlags} flags @param {DrainUrl} url
 */
export function drainCommands(flags, url) {
  const quote = (/** @type {string} */ s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\`])/g, '\\$1')}"`);
  // The agent reads a private CA for syslog-tls:// from the drain service's credentials (`ca`).
  const credentials = flags.ca ? ['-p', JSON.stringify({ ca: readCa(flags.ca) })] : [];
  const shownCredentials = credentials.length ? ` -p '${credentials[1]}'` : '';
  /** @type {Array<{ argv: string[], line: string }>} */
  const commands = [
    {
      argv: ['create-user-provided-service', flags.service, '-l', url.real, ...credentials],
      line: `cf create-user-provided-service ${quote(flags.service)} -l ${quote(url.shown)}${shownCredentials}`,
    },
  ];
  for (const app of flags.app) {
    commands.push({
      argv: ['bind-service', app, flags.service],
      line: `cf bind-service ${quote(app)} ${quote(flags.service)}`,
    });
  }
  return commands;
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ out: (line: string) => void }} ctx
 * @param {DrainSetupFlags} flags
 * @returns {Promise<number>}
 */
export async function drainSetupCommand(config, { out }, flags) {
  if (!flags.app?.length)
    throw new ConfigError('--app is required (repeat it for several apps)', { variable: '--app' });
  const url = drainUrl(flags, config.drain, config.appRoutes);
  const commands = drainCommands(flags, url);
  for (const note of url.notes) out(note);
  if (!flags.apply) {
    if (!flags.tcp) out("# Run in a shell where DRAIN_TOKEN holds the collector's token (or add --apply).");
    out('# The syslog agents pick up a new drain binding after a few minutes.');
    for (const c of commands) out(c.line);
    return 0;
  }
  for (const c of commands) {
    out(`$ ${c.line}`);
    // cf does not echo the URL today; should a version ever do, the token still never shows.
    const forms = config.drain.token ? [config.drain.token, encodeURIComponent(config.drain.token)] : [];
    const scrubbed = (/** @type {string} */ line) =>
      forms.reduce((text, secret) => text.split(secret).join('[REDACTED]'), line);
    const code = await runCf(c.argv, (line) => out(scrubbed(line)));
    if (code !== 0) {
      out(`paasmon: cf ${c.argv[0]} failed (exit ${code}); fix it and run the command again`);
      return 1;
    }
  }
  return 0;
}

/** The CA certificate file given with --ca, as PEM text. @param {string} file */
function readCa(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`--ca ${file} cannot be read (${/** @type {any} */ (err).code ?? err})`, {
      variable: '--ca',
      cause: err,
    });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(`--ca ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`, { variable: '--ca' });
  return text.trim();
}

/**
 * The user's cf CLI, with the user's environment (its login lives in CF_HOME / ~/.cf).
 * @param {string[]} argv @param {(line: string) => void} out @returns {Promise<number>}
 */
function runCf(argv, out) {
  return new Promise((resolve) => {
    const child = spawn('cf', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @param {Buffer} d */
    const relay = (d) => {
      for (const line of String(d).split('\n')) if (line.trim()) out(`  ${line}`);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.on('error', (err) => {
      out(
        `paasmon: cannot run the cf CLI (${/** @type {any} */ (err).code ?? err.message}); ` +
          'run the commands without --apply and paste them',
      );
      resolve(127);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}
