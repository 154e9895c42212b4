// The whole command tree, declared in this one file: each command's options and help, and which
// export of collector/commands/ runs it (through the program's verb).
import { FORMATS } from './sources/load-results/formats.js';

/** @typedef {import('commander').Command} Command */
/** @typedef {(module: string, name: string) => (...args: any[]) => Promise<void>} Verb */

/** collect, poll, ingest, drain setup: the platform's data. @param {Command} program @param {Verb} verb */
export function addCollectorCommands(program, verb) {
  program
    .command('collect')
    .description(
      'long-running service: migrate, poll on POLL_SCHEDULE, serve /metrics, /healthz, /livez, /readyz on $PORT',
    )
    .addHelpText('after', `${CLOUD_CONTROLLER_ENV}${COLLECT_ENV}${DATABASE_ENV}`)
    .action(verb('collect', 'collectCommand'));

  program
    .command('poll')
    .description('one Cloud Controller poll now: writes the samples and prints a table of instances')
    .addHelpText('after', `${CLOUD_CONTROLLER_ENV}${DATABASE_ENV}`)
    .action(verb('poll', 'pollCommand'));

  program
    .command('ingest')
    .description(
      'router logs: the next increment after the checkpoint, a window (--from/--to) from ' +
        'Elasticsearch/OpenSearch, or gorouter lines from a file or stdin',
    )
    .option('--from <time>', 'window start, ISO 8601 (2026-11-22T10:00:00Z) or now-15m')
    .option('--to <time>', 'window end (exclusive)')
    .option('--file <path>', 'gorouter lines or `cf logs APP --recent` output; - for stdin')
    .option(
      '--app <name>',
      'app name for the lines of --file (the lines carry only the app guid); without it, names are looked up ' +
        'in the Cloud Controller (CF_API)',
    )
    .option(
      '--max-skipped-ratio <ratio>',
      'fail (exit 1) when more records than this are skipped (INGEST_MAX_SKIPPED_RATIO, default 0.01)',
    )
    .action(verb('ingest', 'ingestCommand'));

  const drain = program.command('drain').description('the collector as a Cloud Foundry syslog drain');
  drain
    .command('setup')
    .description("print (or, with --apply, run) the cf commands that bind apps to the collector's drain")
    .requiredOption('--app <name...>', 'app whose logs (RTR lines included) go to the drain; repeat for several')
    .option(
      '--url <url>',
      "the collector's route, e.g. https://paasmon.apps.example.com (default: this app's first route)",
    )
    .option('--no-batch', 'https:// (one POST per message) instead of https-batch:// (agents before v8.3.0)')
    .option(
      '--tcp <host:port>',
      'a TCP route to DRAIN_TCP_PORT instead of HTTPS: syslog-tls:// with DRAIN_TLS_CERT set, else syslog://',
    )
    .option('--ca <file>', "with --tcp and TLS: the CA of the collector's certificate, for the agent to trust")
    .option('--service <name>', 'name of the user-provided service', 'paasmon-drain')
    .option('--apply', 'run the commands with the cf CLI (logged in, target set)')
    .action(verb('drain', 'drainSetupCommand'));
}

/** run start|stop|list|exec. @param {Command} program @param {Verb} verb */
export function addRunCommands(program, verb) {
  const run = groupCommand(program, 'run', 'test runs: what every comparison groups by');
  run
    .command('start')
    .description('register a test run; prints its id')
    .requiredOption('--label <label>', '(required) what this run is, e.g. "java 2 instances"')
    .requiredOption('--app <name>', '(required) the app under test (its CPU and memory join the run)')
    .option('--instances <n>', 'app instances')
    .option('--parallel <p>', 'parallel requests of the load')
    .option('--round <r>', 'round number, for repeated runs of one setting')
    .option('--impl <name>', 'implementation, e.g. java or nodejs')
    .option('--cores-per-instance <c>', 'CPU cores one instance may use (for CPU capacity)')
    .option('--meta <k=v...>', 'more parameters, stored in test_runs.meta')
    .action(verb('run', 'runStartCommand'));
  run.command('stop <id>').description('end a test run').action(verb('run', 'runStopCommand'));
  run.command('list').description('list test runs').action(verb('run', 'runListCommand'));

  run
    .command('exec')
    .description('run a load tool inside a run: start (or join) it, run COMMAND, import its results, end it')
    .argument('<command...>', 'the tool and its arguments, after --')
    .option('--run <id>', 'join this run instead of starting one')
    .option('--app <name>', 'the app under test, for the new run')
    .option('--label <label>', 'label of the new run')
    .option('--instances <n>', 'app instances')
    .option('--parallel <p>', 'parallel requests of the load')
    .option('--impl <name>', 'implementation, e.g. java or nodejs')
    .option('--meta <k=v...>', 'more parameters, stored in test_runs.meta')
    .option('--results <file>', "the tool's results file, imported when it ends")
    .option('--format <f>', `format of --results: ${IMPORT_FORMATS} (detected when absent)`)
    .option('--max-skipped-ratio <ratio>', 'fail (exit 1) when more lines than this are unreadable (0.01)')
    .option('--warmup <d>', 'leave the requests sent in the first d after the tool starts out of the run')
    .passThroughOptions()
    .action(verb('run-exec', 'runExecCommand'));
}

/** import, loadgen, worker, correlate: the load side. @param {Command} program @param {Verb} verb */
export function addLoadCommands(program, verb) {
  program
    .command('import')
    .description("another load tool's results into a run, one record per request (k6, JMeter, Gatling, Locust, ...)")
    .argument('<file>', 'the results file; - for stdin')
    .option('--format <f>', `${IMPORT_FORMATS} (detected from the content when absent)`)
    .option('--run <id>', 'import into this run')
    .option('--app <name>', 'the app under test, for a new run (with --label)')
    .option('--label <label>', 'label of the new run')
    .option('--instances <n>', 'app instances')
    .option('--parallel <p>', 'parallel requests of the load')
    .option('--impl <name>', 'implementation, e.g. java or nodejs')
    .option('--meta <k=v...>', 'more parameters, stored in test_runs.meta')
    .option('--started-at <time>', "hey: the time its offsets count from (ISO 8601); other tools' times are absolute")
    .option(
      '--max-skipped-ratio <ratio>',
      'fail (exit 1) when more lines than this are unreadable (INGEST_MAX_SKIPPED_RATIO, default 0.01)',
    )
    .action(verb('import', 'importCommand'));

  program
    .command('loadgen')
    .description('generate load and record every request (closed model with --parallel, open model with --rate)')
    .requiredOption('--url <url>', '(required) target URL')
    .option('--requests <n>', 'stop after n requests (one of --requests and --duration is required)')
    .option('--duration <d>', 'stop sending after this long, e.g. 60s (with --requests: whichever comes first)')
    .option('--parallel <p>', 'closed model: requests always in flight (1)')
    .option('--rate <r>', 'open model: requests per second on a fixed schedule; latency from the scheduled time')
    .option('--ramp <d>', 'open model: the rate rises linearly from 0 to --rate over d, e.g. 10s (within --duration)')
    .option('--warmup <d>', 'send the same load for d before the run, on the same connections, never recorded')
    .option('--run <id>', 'test run to record into (or RUN_ID); a new run, ended with the load, when absent')
    .option('--app <name>', 'the app under test, for the new run (its CPU and memory join the run)')
    .option('--label <label>', 'label of the new run (default: loadgen HOST)')
    .option('--method <m>', 'HTTP method (GET)')
    .option('-H, --header <h...>', 'extra header "Name: value"')
    .option('--body <text>', 'request body')
    .option('--timeout <d>', 'per-request timeout (10s)')
    .option('--connections <c>', 'at most c keep-alive connections, opened as needed (--parallel; --rate: 100)')
    .option('--start-at <time>', 'wait until this time (ISO 8601), so several workers start together')
    .option('--worker <name>', 'worker name (default: instance-$CF_INSTANCE_INDEX, or host-pid)')
    .option('--max-error-ratio <x>', 'exit 1 when the error ratio is above x')
    .option('--max-p95 <ms>', 'exit 1 when p95 is above this many ms')
    .option('--metrics-port <port>', 'serve /metrics while running (default: $PORT when set)')
    .option('--summary-export <file>', 'also write the summary as JSON (latency percentiles, histogram, statuses)')
    .action(verb('loadgen', 'loadgenCommand'));

  program
    .command('worker')
    .description(
      'load-generator worker: idles until a run with --meta url=... is started, drives it, waits for the next',
    )
    .option('--worker <name>', 'worker name (default: instance-$CF_INSTANCE_INDEX, or host-pid)')
    .action(verb('worker', 'workerCommand'));

  program
    .command('correlate')
    .description('count load-generator records matched with router records, per run')
    .option('--run <id>', 'one run only')
    .action(verb('correlate', 'correlateCommand'));
}

/** migrate, db status|stop|url, psql. @param {Command} program @param {Verb} verb */
export function addDatabaseCommands(program, verb) {
  program
    .command('migrate')
    .description('apply the SQL migrations in sql/migrations')
    .action(verb('migrate', 'migrateCommand'));

  program
    .command('prune')
    .description('drop the raw rows older than RETENTION or --before, whole days at a time; runs keep their figures')
    .option('--before <time>', 'ISO 8601 time with a zone, or now-<n>d (default: now minus RETENTION)')
    .option('--dry-run', 'only list what would be dropped')
    .action(verb('prune', 'pruneCommand'));

  const db = groupCommand(program, 'db', 'the embedded PostgreSQL (used when DATABASE_URL is not set)');
  db.command('status')
    .description('whether it runs, its port, data directory and URL (password hidden)')
    .action(verb('db', 'dbStatusCommand'));
  db.command('stop')
    .description('stop it (the next command that needs it starts it again)')
    .action(verb('db', 'dbStopCommand'));
  db.command('url')
    .description('print its URL (starting it when needed), e.g. psql "$(paasmon db url)"; DATABASE_URL when set')
    .action(verb('db', 'dbUrlCommand'));

  program
    .command('psql')
    .description("open psql on paasmon's database (DATABASE_URL, or the embedded one); arguments go to psql")
    .argument('[args...]', 'psql arguments, e.g. -c "SELECT * FROM run_summary"')
    .allowUnknownOption()
    .passThroughOptions()
    .helpOption(false)
    .action(verb('db', 'psqlCommand'));
}

/**
 * A command that only groups subcommands: bare, or with an unknown subcommand, it is a usage error.
 * @param {Command} parent @param {string} name @param {string} description
 */
function groupCommand(parent, name, description) {
  const group = parent.command(name).description(description).argument('[command]').allowExcessArguments();
  return group.action((/** @type {string | undefined} */ sub) => {
    const subs = group.commands.map((c) => c.name()).join(', ');
    group.error(sub ? `unknown command '${sub}' (one of ${subs})` : `missing command: one of ${subs}`);
  });
}

const IMPORT_FORMATS = FORMATS.join(', ');

const CLOUD_CONTROLLER_ENV = `
Environment (see docs/configuration.md):
  CF_API                          Cloud Controller URL (required)
  CF_USERNAME + CF_PASSWORD       UAA password grant, or CF_CLIENT_ID + CF_CLIENT_SECRET
  CF_APPS or CF_SPACE_GUID        the apps to watch (names or GUIDs), or every app of a space
  CF_SKIP_SSL_VALIDATION, CF_CONCURRENCY, CF_TIMEOUT, DB_BUFFER_RECORDS, LOG_LEVEL
`;
const COLLECT_ENV = `  POLL_SCHEDULE                   cron with seconds (*/5 * * * * *)
  SEARCH_URL, SEARCH_INDEX, ...   router logs from Elasticsearch/OpenSearch, on INGEST_SCHEDULE
  PORT, METRICS_BEARER_TOKEN      /metrics (bearer token), /healthz, /livez, /readyz
  METRICS_PUBLIC                  true: /metrics open on Cloud Foundry without a token (else 401)
  DRAIN_TOKEN, DRAIN_TCP_PORT     syslog drain: POST /drain?token=..., syslog(-tls) on a TCP port
  LOG_CACHE_URL (or auto)         router lines and container gauges from Log Cache, on LOG_CACHE_SCHEDULE
`;
const DATABASE_ENV = `  DATABASE_URL                    PostgreSQL; else the embedded one under PAASMON_DATA_DIR
`;
