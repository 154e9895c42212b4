// The analysis commands' options and help (report, compare, changes, demo); the rest are in command-tree.js.

/** @typedef {import('./command-tree.js').Command} Command */
/** @typedef {import('./command-tree.js').Verb} Verb */

// run_history's figures (report/changes/history.js), listed here so that the tree loads no report code.
const FIGURE_LIST =
  'throughput_rps, e2e_mean_ms, e2e_p50_ms, e2e_p95_ms, e2e_p99_ms, outside_router_mean_ms, router_mean_ms, ' +
  'gorouter_mean_ms, behind_router_mean_ms, error_ratio, cpu_ms_per_request, mem_bytes_avg';

/** report, compare, changes, demo. @param {Command} program @param {Verb} verb */
export function addAnalysisCommands(program, verb) {
  program
    .command('report')
    .description(
      'compare runs over their steady windows: throughput, latency, CPU (tables 7.1, 7.2), scaling; ' +
        'as a table, md, csv, json or html',
    )
    .option('--runs <ids>', 'run ids, e.g. 1,2,3')
    .option('--label <label>', 'every run with this label')
    .option('--since <time>', 'every run started since, ISO 8601 or now-2h')
    .option('--format <f>', 'table, md, csv, json or html (table)')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--trim <fraction>', 'fraction of each run dropped at each end (0.1: the steady window)')
    .option('--scale-by <load>', 'load of the scalability fit: auto, parallel or instances (auto)')
    .option('--recompute', 'aggregate every request again instead of reading the figures stored for unchanged runs')
    .option('--baseline <runs>', 'html: with --candidate, the comparison of `paasmon compare` as a section')
    .option('--candidate <runs>', 'html: run ids, a label, label:L or since:T (the runs of both sides without --runs)')
    .option('--seed <n>', "seed of the comparison's bootstraps (printed; random when absent)")
    .action(verb('report', 'reportCommand'));

  program
    .command('changes')
    .description(
      "change points in the history of runs of one label or app (Apache Otava's method: E-divisive means " +
        'with a t-test), each with its first run, figure, direction, size and the layer that moved',
    )
    .option('--label <label>', 'the runs with this label (one of --label and --app is required)')
    .option('--app <name>', 'the runs of this app')
    .option('--figure <name>', `one figure only: ${FIGURE_LIST}`)
    .option('--format <f>', 'table, md or json (table)')
    .option('--p-value <p>', 'largest p-value of a change point (0.001)')
    .option('--magnitude <m>', 'smallest relative change of a change point, e.g. 0.05 for 5 % (0)')
    .option('--window <n>', 'runs analysed at once (50)')
    .option(
      '--min-segment <n>',
      'fewest runs between change points, so one outlier run is not a change (2; 1 as Otava)',
    )
    .action(verb('changes', 'changesCommand'));

  program
    .command('compare')
    .description(
      'regression gate: candidate runs against baseline runs (each run a round), per figure and layer, with ' +
        '95 % intervals; exit 0 unchanged or improved, 3 regressed, 4 inconclusive, 5 not comparable',
    )
    .requiredOption('--baseline <runs>', '(required) run ids (12,13,14), a label, label:L or since:T')
    .requiredOption('--candidate <runs>', '(required) run ids, a label, label:L or since:T')
    .option('--format <f>', 'table, md, json, junit or html (table)')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--gate <figures>', 'the gated figures (e2e_p95_ms,error_ratio,throughput_rps,cpu_ms_per_request)')
    .option('--latency-threshold <percent>', 'noise threshold of latencies (5)')
    .option('--throughput-threshold <percent>', 'noise threshold of throughput (5)')
    .option('--errors-threshold <points>', 'noise threshold of the error ratio, percentage points (0.5)')
    .option('--cpu-threshold <percent>', 'noise threshold of CPU per request (5)')
    .option('--memory-threshold <percent>', 'noise threshold of memory (10)')
    .option('--mix-tolerance <percent>', 'largest difference of the endpoint mix between the sides (10)')
    .option('--trim <fraction>', 'fraction of each run dropped at each end (0.1: the steady window)')
    .option('--seed <n>', 'seed of the bootstraps (printed; random when absent)')
    .option('--force', 'compare sides that are not comparable, and say so')
    .action(verb('compare', 'compareCommand'));

  addDemoCommand(program, verb);
}

/** @param {Command} program @param {Verb} verb */
function addDemoCommand(program, verb) {
  program
    .command('demo')
    .description(
      'the whole chain on this machine, no Cloud Foundry account: sample app, router and Cloud Controller ' +
        'stand-ins, collect, one loadgen run per implementation, instance count and load, the comparison',
    )
    .option('--duration <d>', 'load of each run', '3s')
    .option('--warmup <d>', 'load before the first run of each instance count, in no run (0 for none)', '5s')
    .option('--instances <list>', 'instance counts: the app restarted at each', '1')
    .option('--impl <list>', 'sample app implementations, node and/or java (node,java; --regression: node)')
    .option(
      '--parallel <list>',
      'requests in flight: one run each at each instance count (1,2,4,8,16,32; --regression: 4)',
    )
    .option('--rate <list>', 'open model: requests per second, one run each after the --parallel runs')
    .option('--cores-per-instance <n>', "each instance's CPU entitlement, pinned with taskset", '1')
    .option('--metrics-interval <d>', "the platform measures each instance's CPU and memory every d, as Diego does")
    .option('--keep', 'stay up after the runs (with Prometheus when installed) until Ctrl-C')
    .option(
      '--regression',
      'the regression gate instead of the sweep: rounds of one setting, then the same with a delay added ' +
        'behind the router, interleaved, and `paasmon compare` on them',
    )
    .option('--rounds <n>', 'with --regression: rounds per side (3)')
    .option('--delay <d>', 'with --regression: added by the app to each answer in the candidate rounds (20ms)')
    .option('--out <dir>', 'where the comparison is written', 'paasmon-demo')
    .action(verb('demo', 'demoCommand'));
}
