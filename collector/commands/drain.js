// `paasmon drain setup`: the cf commands that make the collector a syslog drain of the apps.
import { spawn } from 'node:child_process';
import { ConfigError } from '../../core/errors.js';

/** @typedef {{ app: string[], url?: string, tcp?: string, service: string, apply?: boolean }} DrainSetupFlags */

/**
 * The drain URL the agent will post to: `--url` (the collector's route), or the first route of the
 * app this runs in. `--tcp host:port` makes a syslog-tls:// drain instead.
 * @param {DrainSetupFlags} flags @param {string | undefined} token DRAIN_TOKEN @param {string[]} appRoutes
 * @returns {{ shown: string, real: string }} the URL with $DRAIN_TOKEN for printing, and with the token for --apply
 */
export function drainUrl(flags, token, appRoutes) {
  if (flags.tcp) {
    if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(flags.tcp))
      throw new ConfigError(`--tcp must be host:port, got ${JSON.stringify(flags.tcp)}`, { variable: '--tcp' });
    const url = `syslog-tls://${flags.tcp}`;
    return { shown: url, real: url };
  }
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
  if (!token)
    throw new ConfigError(
      'DRAIN_TOKEN is required (the same value the collector runs with; e.g. openssl rand -hex 32)',
      { variable: 'DRAIN_TOKEN' },
    );
  const drain = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}/drain?token=`;
  return { shown: `${drain}$DRAIN_TOKEN`, real: `${drain}${encodeURIComponent(token)}` };
}

/**
 * The commands, each as argv (with the real URL) and as a line to print (without the token).
 * @param {DrainSetupFlags} flags @param {{ shown: string, real: string }} url
 */
export function drainCommands(flags, url) {
  const quote = (/** @type {string} */ s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\`])/g, '\\$1')}"`);
  /** @type {Array<{ argv: string[], line: string }>} */
  const commands = [
    {
      argv: ['create-user-provided-service', flags.service, '-l', url.real],
      line: `cf create-user-provided-service ${quote(flags.service)} -l ${quote(url.shown)}`,
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
  const url = drainUrl(flags, config.drain.token, config.appRoutes);
  const commands = drainCommands(flags, url);
  if (!flags.apply) {
    out("# Run in a shell where DRAIN_TOKEN holds the collector's token (or add --apply).");
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
