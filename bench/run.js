// `npm run bench`: the receiver against its targets, in one run. Every server runs in its own
// process pinned to the server CPU and every load generator in another pinned to the load CPU
// (taskset, when it exists); all traffic goes to 127.0.0.1; scenarios that would start past the
// time budget are skipped and a watchdog stops everything past it. Prints a table per scenario and
// one of the targets, and writes everything measured to bench/results/<timestamp>.json.
//
//   node bench/run.js [--quick] [--only=1,dedupe] [--rounds=N] [--seconds=S] [--per-type] ...
//   node bench/run.js --help
//
// Adding a scenario: write bench/scenarios/<name>.js exporting `async function run(bench)` and add
// one line to SCENARIOS below. The runner prints its heading (`## <id>. <title>`) and stores what
// `run` returns under results.scenarios[<name>]. `bench`, the toolbox:
//
//   load                 the load generator (workers/load.js, autocannon), pinned to the load CPU:
//                        load.call('run', { url, type, connections, durationSec, conversations, rate })
//   startServer(script, config, { nodeArgs }?)
//                        starts `script` (a path under bench/; servers/serve.js serves every kind,
//                        config `{ kind, ...options }`) pinned to the server CPU; resolves the child
//                        once it listens (`child.hello.port`, `child.call('probe')`). The scripts'
//                        former names (server.js, adapters-server.js, metrics-server.js,
//                        otel-server.js) still work: they all map to servers/serve.js
//   startWorker(script, { cpu: 'server' | 'load', nodeArgs, args }?)
//                        any other child (workers/*.js), answering `call(command, payload)`
//   stop(child)          stops a child started by either (the runner stops any left at the end)
//   measure(load, server, { path, type, seconds?, conversations?, rate? })
//                        one measured load: the load's exact latencies and status counts, the
//                        server's CPU µs per request and CPU share, the machine's other CPU
//   target(name, measured, limit, pass, note)
//                        records a target row (limit like '≥ 1.00×', '≤ 200'; pass undefined for
//                        "reported")
//   log(...parts)        prints a line
//   quick, connections (50), seconds (--seconds), rounds (--adapter-rounds: rounds of the
//   interleaved comparisons, bench/lib/interleaved.js)
//   instructions         true when the ratio targets are judged by instruction counts
//                        (lib/instructions.js benchInstructions(bench, kinds, ...)); false with
//                        --quick, --no-instructions or without valgrind
//   instructionSettings  warm-up, requests per window, windows (--instr-*)
//   options              every parsed option (rounds, perType, profile, ladderRate, ...)
//   longSeconds          seconds per run of the scenarios that need more samples (2 s; quick 1 s)
//   profileDir           where --cpu-prof profiles go (bench/results/profiles/)
//   startRedis()         a private redis-server on a unix socket ({ socket } or { skipped })
//
// What scenarios import besides: ../lib/interleaved.js (measureInterleaved(bench, script, kinds,
// options), medianCell, non2xx), ../lib/bodies.js (WEBHOOK_TYPES, MIXED, pathOf), ../lib/table.js.
import os from 'node:os';
import { createProgram, integer, Option, parseArgs, positive } from './lib/args.js';
import { hasCallgrind, INSTRUCTION_DEFAULTS } from './lib/instructions.js';
import { createMeasure } from './lib/measure.js';
import { LOAD_CPU, pinned, SERVER_CPU, startChild } from './lib/proc.js';
import { startRedis } from './lib/redis.js';
import { RESULTS_DIR, writeResults } from './lib/results.js';
import { fixed, ratio, table, verdict } from './lib/table.js';

/** The scenarios, in the order they run. `aliases`: former numbers and names (see docs/bench.md). */
const SCENARIOS = [
  {
    id: 1,
    name: 'throughput',
    aliases: ['adapters', 'peers', '6'],
    title: 'Adapters against the receivers a user would hand-write',
    module: './scenarios/throughput.js',
  },
  { id: 10, name: 'stages', title: 'In-process pipeline cost by stage', module: './scenarios/stages.js' },
  {
    id: 2,
    name: 'slow-callbacks',
    title: 'Ack latency with 30-second callbacks',
    module: './scenarios/slow-callbacks.js',
  },
  { id: 3, name: 'dedupe', title: 'Dedupe store: memory and check cost', module: './scenarios/dedupe.js' },
  { id: 4, name: 'emulator', title: 'Emulator fan-out', module: './scenarios/emulator.js' },
  { id: 5, name: 'redis', title: 'Redis/BullMQ mode vs in-memory', module: './scenarios/redis.js' },
  {
    id: 17,
    name: 'redis-peer',
    aliases: ['redis-worker'],
    title:
      'Redis mode against the hand-written Redis receiver; createWorker against a hand-written BullMQ worker',
    module: './scenarios/redis-peer.js',
  },
  {
    id: 12,
    name: 'redis-wait',
    title: 'Redis mode: waitForReplicas 1 ÷ the default acknowledgement',
    module: './scenarios/redis-wait.js',
  },
  {
    id: 13,
    name: 'emulator-scale',
    title: 'Emulator: µs per customer message after 1,000 and 20,000 customers',
    module: './scenarios/emulator-scale.js',
  },
  {
    id: 7,
    name: 'emulator-keepalive',
    title: 'Emulator keep-alive fan-out ÷ bare undici POST loop',
    module: './scenarios/emulator-keepalive.js',
  },
  {
    id: 8,
    name: 'metrics',
    title: 'Metrics: node handler with collectMetrics ÷ without',
    module: './scenarios/metrics.js',
  },
  {
    id: 9,
    name: 'otel',
    aliases: ['tracing'],
    title: 'Tracing: node handler with traceWebhooks (no SDK; SDK + dropping exporter) ÷ without',
    module: './scenarios/otel.js',
  },
  {
    id: 14,
    name: 'dedupe-flood',
    aliases: ['hash-flood'],
    title: 'Dedupe store under hash flooding: crafted ÷ random claims; seeded table vs lru-cache',
    module: './scenarios/dedupe-flood.js',
  },
  {
    id: 15,
    name: 'bundle-size',
    aliases: ['worker'],
    title: 'Cloudflare Worker receiver: bundle size (esbuild, minified, gzipped)',
    module: './scenarios/bundle-size.js',
  },
  {
    id: 16,
    name: 'bot-dispatch',
    title: 'Bot handler API: CPU µs per event over a single callback',
    module: './scenarios/bot-dispatch.js',
  },
  {
    id: 11,
    name: 'ladder',
    optIn: true,
    title: 'Cost ladders at a fixed offered rate',
    module: './scenarios/ladder.js',
  },
];

/** Scenario scripts of earlier layouts, all served by servers/serve.js now. */
const MOVED_SERVER_SCRIPTS = new Set([
  'server.js',
  'adapters-server.js',
  'metrics-server.js',
  'otel-server.js',
]);
const CONNECTIONS = 50;

const program = createProgram('bench', 'The receiver against its targets (docs/bench.md).', {
  registry: SCENARIOS,
  what: 'scenario',
})
  .option('--quick', 'one round of 1-second runs: a smoke test, numbers not meant to be quoted')
  .option(
    '--rounds <n>',
    'rounds of scenarios 1, 5 and 11 (default 3; quick 1; scenario 1: 1 when instruction counts judge it)',
    integer(),
  )
  .option('--seconds <s>', 'seconds per measured run of scenarios 1, 8, 9 (default 1.5; quick 1)', positive)
  .option('--adapter-rounds <n>', 'rounds of the interleaved comparisons 8 and 9', integer(), 1)
  .option('--per-type', 'scenario 1: measure each webhook type on its own instead of the five in turn')
  .option('--profile', 'scenario 1: V8 CPU profiles of the router and the node handler, summarised')
  .option('--ladder', 'also run scenario 11, the cost ladders (several minutes)')
  .option('--ladder-rate <n>', 'offered requests/s of the cost ladders', integer(), 500)
  .option(
    '--no-instructions',
    'judge scenarios 1, 8 and 9 by req/s instead of instruction counts (no valgrind)',
  )
  .option(
    '--instr-warmup <n>',
    'instruction counts: warm-up requests per server',
    integer(),
    INSTRUCTION_DEFAULTS.warmup,
  )
  .option(
    '--instr-requests <n>',
    'instruction counts: requests per measured window',
    integer(),
    INSTRUCTION_DEFAULTS.requests,
  )
  .option(
    '--instr-windows <n>',
    'instruction counts: measured windows per server',
    integer(),
    INSTRUCTION_DEFAULTS.windows,
  )
  .addOption(
    new Option(
      '--budget <seconds>',
      'skip scenarios that would start later than this; the watchdog stops all 90 s after',
    )
      .argParser(integer())
      // The instruction counts of scenarios 1, 8, 9 and 17 (valgrind) take about half of a run,
      // which took 9 to 15 minutes on a 2-vCPU machine.
      .default(1200),
  );
const options = parseArgs(program);
options.roundsGiven = options.rounds !== undefined;
options.rounds ??= options.quick ? 1 : 3;
options.seconds ??= options.quick ? 1 : 1.5;
const quick = options.quick === true;
// Instruction counts judge the ratio targets of scenarios 1, 8 and 9 (lib/instructions.js): not in
// a --quick smoke run (valgrind is slow), nor where valgrind is missing.
const instructions = options.instructions !== false && !quick && hasCallgrind;

const profileDir = `${RESULTS_DIR}profiles/`;
const children = new Set();
const results = {
  startedAt: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    pinned,
    callgrind: hasCallgrind,
    loadavgAtStart: os.loadavg(),
  },
  settings: { ...options, only: options.only && [...options.only], connections: CONNECTIONS },
  scenarios: {},
  scenarioSeconds: {},
  targets: [],
};

const log = (...parts) => console.log(...parts);

async function child(script, childOptions) {
  const started = await startChild(script, childOptions);
  children.add(started);
  return started;
}
async function stop(started) {
  children.delete(started);
  await started.stop();
}
async function stopAll() {
  await Promise.all([...children].map((started) => stop(started)));
}

let current;
function target(name, measured, limit, pass, note) {
  results.targets.push({ scenario: current?.id, name, measured, limit, pass, note });
}

function wanted(scenario) {
  if (scenario.name === 'ladder' && options.ladder === true) return true;
  if (options.only) return options.only.has(scenario.id);
  return !scenario.optIn;
}

async function main() {
  const started = Date.now();
  log(`# messaging-webhooks bench — ${results.startedAt}`);
  log(
    `${results.machine.cpus} × ${results.machine.model}, node ${process.version}, ${pinned ? `servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU} (taskset)` : 'not pinned (no taskset)'}; load average at start ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
  const load = await child('workers/load.js', { cpu: LOAD_CPU, name: 'load' });
  const bench = {
    load,
    startServer: (script, config, { nodeArgs = [] } = {}) =>
      child(MOVED_SERVER_SCRIPTS.has(script) ? 'servers/serve.js' : script, {
        cpu: SERVER_CPU,
        args: [JSON.stringify(config)],
        nodeArgs,
        name: config.kind,
      }),
    startWorker: (script, { cpu = 'server', nodeArgs = [], args = [] } = {}) =>
      child(script, { cpu: cpu === 'load' ? LOAD_CPU : SERVER_CPU, nodeArgs, args, name: script }),
    stop,
    measure: createMeasure({ connections: CONNECTIONS, seconds: options.seconds }),
    target,
    log,
    quick,
    connections: CONNECTIONS,
    seconds: options.seconds,
    rounds: options.adapterRounds,
    instructions,
    instructionSettings: {
      warmup: options.instrWarmup,
      requests: options.instrRequests,
      windows: options.instrWindows,
    },
    options,
    longSeconds: quick ? 1 : 2,
    profileDir,
    async startRedis() {
      const redis = await startRedis({ cpu: LOAD_CPU });
      if (!redis.skipped) children.add(redis);
      return redis;
    },
  };
  for (const scenario of SCENARIOS) {
    if (!wanted(scenario)) continue;
    if ((Date.now() - started) / 1000 > options.budget) {
      const reason = `time budget: ${options.budget} s spent before it could start`;
      results.scenarios[scenario.name] = { skipped: reason };
      log(`\n## ${scenario.id}. ${scenario.title}: skipped (${reason})`);
      continue;
    }
    current = scenario;
    log(`\n## ${scenario.id}. ${scenario.title}`);
    const t0 = Date.now();
    const { run } = await import(scenario.module);
    results.scenarios[scenario.name] = await run(bench);
    results.scenarioSeconds[scenario.name] = (Date.now() - t0) / 1000;
    log(`(scenario ${scenario.id}: ${results.scenarioSeconds[scenario.name].toFixed(0)} s)`);
  }
  current = undefined;
  await stop(load);

  log('\n## Targets');
  log(
    table(
      ['#', 'target', 'measured', 'limit', 'verdict', 'note'],
      results.targets.map((t) => [
        t.scenario,
        t.name,
        t.limit.includes('×') || t.limit === 'reported' ? ratio(t.measured) : fixed(t.measured, 1),
        t.limit,
        verdict(t.pass),
        t.note ?? '',
      ]),
    ),
  );
  results.finishedAt = new Date().toISOString();
  results.elapsedSec = (Date.now() - started) / 1000;
  results.machine.loadavgAtEnd = os.loadavg();
  const file = writeResults(results, { startedAt: results.startedAt });
  log(
    `\n${results.elapsedSec.toFixed(0)} s; load average at end ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}; results written to ${file}`,
  );
}

// The watchdog: past the budget plus 90 s, stop every child and fail.
const WATCHDOG_MS = (options.budget + 90) * 1000;
setTimeout(() => {
  console.error(`bench: still running after ${WATCHDOG_MS / 1000} s; stopping`);
  void stopAll().finally(() => process.exit(1));
}, WATCHDOG_MS).unref();

const interrupt = () => {
  void stopAll().finally(() => process.exit(130));
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
