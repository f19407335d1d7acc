// `npm run bench`: the receiver against its ceilings, in one run. Every server runs in its own
// process pinned to CPU 0 and every load generator in another pinned to CPU 1 (taskset, when it
// exists); all traffic goes to 127.0.0.1 and every scenario is bounded in time. Prints a table per
// scenario and writes everything measured to bench/results/<timestamp>.json.
//
//   node bench/run.js [--quick] [--only=1,3] [--rounds=N] [--seconds=S] [--profile] [--ladder]
//
// --rounds, --seconds: rounds and seconds per run of scenario 1 (default 3 rounds of 1.5 s).
// --adapter-rounds: rounds of scenario 6, the Fastify plugin and fetch handler (default 1).
// --ladder: also the cost ladders of scenario 1 (several minutes more; use with --only=1).
//
// --quick: one round of 1-second runs (a smoke test, numbers not meant to be quoted).
// --profile: also write a V8 CPU profile of the router and node-handler servers of scenario 1
//            (node --cpu-prof) under bench/results/profiles/, and print where their time goes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineBusySeconds } from './lib/cpu.js';
import { pinned, startChild } from './lib/proc.js';
import { summarizeProfile } from './lib/profile.js';
import { fixed, geomean, int, median, percent, ratio, table, verdict } from './lib/table.js';
import { WEBHOOK_PATHS } from '../dist/schemas/index.js';
import { WEBHOOK_TYPES } from './lib/bodies.js';
import { scenarioAdapters } from './adapters.js';
import { scenarioMetrics } from './metrics.js';
import { scenarioOtel } from './otel.js';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key, value ?? 'true'];
  }),
);
const quick = args.has('quick');
const only = args.has('only') ? new Set(args.get('only').split(',').map(Number)) : undefined;
const ROUNDS = Number(args.get('rounds') ?? (quick ? 1 : 3));
const SECONDS = Number(args.get('seconds') ?? (quick ? 1 : 1.5));
/** Seconds per run of scenarios 2, 4 and 5 (fewer runs, each needs enough samples for a p99). */
const LONG_SECONDS = quick ? 1 : 2;
const PROFILE = args.has('profile');
const CONNECTIONS = 50;
/** Offered rate of the cost ladders: low enough for every server to keep up on a loaded machine. */
const LADDER_RATE = Number(args.get('ladder-rate') ?? 500);
const LADDER_SECONDS = quick ? 1 : 2;
/**
 * --ladder: also run the cost ladders. Off by default: a server that only the ladder measures
 * must first be warmed as long as the main servers were (their JIT tiers and heap settle over
 * the main runs; pinned to one loaded CPU, V8's background compiler is slow to deliver), which
 * does not fit in the 7-minute run.
 */
const LADDER = args.has('ladder');
const LADDER_WARMUP_SECONDS = quick ? 1 : 10;
/** Past this many seconds, the remaining scenarios are skipped (the whole bench stays under 7 min). */
const BUDGET_SECONDS = 330;
const SERVER_CPU = 0;
const LOAD_CPU = 1;

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const profileDir = `${resultsDir}profiles/`;
const children = new Set();
const results = {
  startedAt: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    pinned,
    loadavgAtStart: os.loadavg(),
  },
  settings: { rounds: ROUNDS, seconds: SECONDS, longSeconds: LONG_SECONDS, connections: CONNECTIONS, quick },
  scenarios: {},
  targets: [],
};

const log = (...parts) => console.log(...parts);
const wanted = (n) => only === undefined || only.has(n);

async function child(script, options) {
  const started = await startChild(script, options);
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
const server = (config, nodeArgs = []) =>
  child('server.js', { cpu: SERVER_CPU, args: [JSON.stringify(config)], nodeArgs, name: config.kind });

/**
 * One measured load against a running server: the load generator's exact latencies plus the
 * server's CPU time over the run (probed before and after) and the CPU the rest of the machine
 * used meanwhile (so a noisy neighbour shows in the results instead of hiding in them).
 */
async function measure(load, srv, { path, type, seconds = SECONDS, conversations, rate }) {
  const before = await srv.call('probe');
  const busyBefore = machineBusySeconds();
  const wallBefore = process.hrtime.bigint();
  const run = await load.call(
    'run',
    {
      url: `http://127.0.0.1:${srv.hello.port}${path}`,
      type,
      connections: CONNECTIONS,
      durationSec: seconds,
      conversations,
      rate,
    },
    (seconds + 30) * 1000,
  );
  // The probes bracket the whole load call (connection set-up and wind-down included), so the
  // CPU shares divide by that wall time, not by autocannon's duration.
  const wallSec = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const busyAfter = machineBusySeconds();
  const after = await srv.call('probe');
  const serverCpuSec = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1e6;
  return {
    ...run,
    serverCpuShare: serverCpuSec / wallSec,
    serverCpuUsPerRequest: (serverCpuSec * 1e6) / run.answered,
    otherCpuCores:
      busyBefore === undefined
        ? undefined
        : Math.max(0, (busyAfter - busyBefore - serverCpuSec - run.loadCpuSec) / wallSec),
    serverStats: after.stats?.[type] ?? after.stats?.total,
    serverHeapUsed: after.memory.heapUsed,
  };
}

/** Answers other than 2xx, plus requests that got no answer (connection errors, timeouts). */
const non2xx = (run) =>
  Object.entries(run.statusCounts)
    .filter(([status]) => !status.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, run.errors ?? 0);

function target(name, measured, limit, pass, note) {
  results.targets.push({ name, measured, limit, pass, note });
}

// ---------------------------------------------------------------------------------------------
// Scenario 1: throughput and latency against the Express and node:http ceilings.

async function scenarioThroughput(load) {
  log(
    `\n## 1. Throughput and latency, ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${SECONDS} s per cell`,
  );
  const kinds = ['express-bare', 'express-router', 'node-raw', 'node-handler'];
  // The cost ladders, run on chatbot events only and at one fixed offered rate, so that every
  // server handles the same requests per second and CPU µs per request compare like for like
  // (at full speed a faster server batches more requests per event-loop wake-up, which lowers
  // its CPU per request by itself). node:http: raw, the library's body reader and answer writer
  // alone, the pipeline without callbacks (parse, validate, ack), with callbacks but no dedupe,
  // and the full handler. Express: its floor (routing, raw body handling), the ceiling, the
  // router.
  const ladder = {
    'express-floor': { kind: 'express-floor' },
    'node-readbody': { kind: 'node-readbody' },
    'handler:no-callbacks': { kind: 'node-handler', variant: 'no-callbacks' },
    'handler:no-dedupe': { kind: 'node-handler', variant: 'no-dedupe' },
  };
  const LADDER_KINDS = [
    'node-raw',
    'node-readbody',
    'handler:no-callbacks',
    'handler:no-dedupe',
    'node-handler',
    'express-floor',
    'express-bare',
    'express-router',
  ];
  const servers = {};
  for (const kind of kinds) {
    const nodeArgs =
      PROFILE && (kind === 'express-router' || kind === 'node-handler')
        ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}${kind}`]
        : [];
    servers[kind] = await server({ kind, callbacks: 'instant' }, nodeArgs);
  }
  if (LADDER) {
    for (const [name, config] of Object.entries(ladder)) {
      servers[name] = await server({ ...config, callbacks: 'instant' });
    }
  }
  const runs = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const type of WEBHOOK_TYPES) {
      // Alternate the order per round so that drift in the machine's load does not favour a kind.
      const order = round % 2 === 1 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        const path = `/webhooks/${WEBHOOK_PATHS[type]}`;
        // Warm-up before a server's first measured run (later types find its code optimized).
        if (round === 1 && type === WEBHOOK_TYPES[0])
          await load.call('run', {
            url: `http://127.0.0.1:${servers[kind].hello.port}${path}`,
            type,
            connections: CONNECTIONS,
            durationSec: quick ? 0.5 : 1.5,
          });
        const run = await measure(load, servers[kind], { path, type });
        runs.push({ round, kind, ...run });
        process.stdout.write('.');
      }
    }
  }
  const ladderRuns = [];
  for (let round = 1; LADDER && round <= ROUNDS; round += 1) {
    const order = round % 2 === 1 ? LADDER_KINDS : [...LADDER_KINDS].reverse();
    for (const kind of order) {
      // Servers only in the ladder get the warm-up the others had over the five types of the main
      // runs; a server still running unoptimized code would show a CPU cost that is not its own.
      if (round === 1 && ladder[kind])
        await load.call('run', {
          url: `http://127.0.0.1:${servers[kind].hello.port}/webhooks/chatbot`,
          type: 'chatbot',
          connections: CONNECTIONS,
          durationSec: LADDER_WARMUP_SECONDS,
        });
      const run = await measure(load, servers[kind], {
        path: '/webhooks/chatbot',
        type: 'chatbot',
        rate: LADDER_RATE,
        seconds: LADDER_SECONDS,
      });
      ladderRuns.push({ round, kind, ...run });
      process.stdout.write(':');
    }
  }
  process.stdout.write('\n');
  for (const started of Object.values(servers)) await stop(started);

  const cell = (kind, type, from = runs) => {
    const mine = from.filter((run) => run.kind === kind && run.type === type);
    return {
      kind,
      type,
      requestsPerSec: median(mine.map((run) => run.okPerSec)),
      p50: median(mine.map((run) => run.latencyOk.p50)),
      p99: median(mine.map((run) => run.latencyOk.p99)),
      cpuUs: median(mine.map((run) => run.serverCpuUsPerRequest)),
      serverCpuShare: median(mine.map((run) => run.serverCpuShare)),
      loadCpuShare: median(mine.map((run) => run.loadCpuShare)),
      otherCpuCores: median(mine.map((run) => run.otherCpuCores)),
      non2xx: mine.reduce((sum, run) => sum + non2xx(run), 0),
      duplicates: mine.reduce((sum, run) => sum + (run.serverStats?.duplicates ?? 0), 0),
      rounds: mine.length,
    };
  };
  const cells = WEBHOOK_TYPES.flatMap((type) => kinds.map((kind) => cell(kind, type)));
  const pairs = [
    {
      receiver: 'express-router',
      ceiling: 'express-bare',
      limit: 1.1,
      name: 'router in Express vs bare Express 5 + express.json()',
    },
    {
      receiver: 'node-handler',
      ceiling: 'node-raw',
      limit: 0.75,
      name: 'createNodeHandler vs raw node:http + JSON.parse',
    },
  ];
  const rows = [];
  const ratios = {};
  for (const pair of pairs) {
    ratios[pair.receiver] = { throughput: [], cpu: [] };
    for (const type of WEBHOOK_TYPES) {
      const mine = cells.find((c) => c.kind === pair.receiver && c.type === type);
      const ceiling = cells.find((c) => c.kind === pair.ceiling && c.type === type);
      const throughputRatio = mine.requestsPerSec / ceiling.requestsPerSec;
      const cpuRatio = ceiling.cpuUs / mine.cpuUs;
      ratios[pair.receiver].throughput.push(throughputRatio);
      ratios[pair.receiver].cpu.push(cpuRatio);
      for (const c of [ceiling, mine]) {
        rows.push([
          type,
          c.kind,
          int(c.requestsPerSec),
          fixed(c.p50),
          fixed(c.p99),
          int(c.cpuUs),
          fixed(c.serverCpuShare),
          fixed(c.loadCpuShare),
          fixed(c.otherCpuCores),
          c.non2xx + c.duplicates,
          c === mine ? ratio(throughputRatio) : '',
          c === mine ? ratio(cpuRatio) : '',
        ]);
      }
    }
  }
  log(
    table(
      [
        'type',
        'server',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'srv CPU',
        'load CPU',
        'other CPU',
        'failed+dup',
        'req/s ratio',
        'CPU ratio',
      ],
      rows,
    ),
  );
  log(
    '(ratio: receiver ÷ its ceiling, per type; "CPU ratio": ceiling CPU µs/req ÷ receiver CPU µs/req; "other CPU": cores busy with processes outside the bench)',
  );
  for (const pair of pairs) {
    const overall = geomean(ratios[pair.receiver].throughput);
    const overallCpu = geomean(ratios[pair.receiver].cpu);
    const worst = Math.min(...ratios[pair.receiver].throughput);
    target(
      pair.name,
      overall,
      `≥ ${pair.limit}×`,
      overall >= pair.limit,
      `geometric mean over the five types; worst type ${worst.toFixed(2)}×; by server CPU per request ${overallCpu.toFixed(2)}×`,
    );
  }
  let ladderCells = [];
  let expressCells = [];
  if (LADDER) {
    expressCells = ['express-floor', 'express-bare', 'express-router'].map((kind) =>
      cell(kind, 'chatbot', ladderRuns),
    );
    log(
      `\nExpress, chatbot at ${LADDER_RATE} req/s offered: its own floor against the two ways of parsing (server CPU µs per request):`,
    );
    log(
      table(
        ['server', 'what it does', 'req/s', 'p99 ms', 'CPU µs/req', 'over the floor'],
        expressCells.map((c, i) => [
          c.kind,
          {
            'express-floor': 'Express routing; body read, JSON.parse and answer as raw node:http',
            'express-bare': 'express.json() + res.json() (the ceiling of the target)',
            'express-router': 'the router mounted with app.use (its own body reading + pipeline)',
          }[c.kind],
          int(c.requestsPerSec),
          fixed(c.p99),
          int(c.cpuUs),
          i === 0 ? '' : int(c.cpuUs - expressCells[0].cpuUs),
        ]),
      ),
    );
    ladderCells = LADDER_KINDS.filter((kind) => !kind.startsWith('express')).map((kind) =>
      cell(kind, 'chatbot', ladderRuns),
    );
    log(
      `\nCost ladder, chatbot at ${LADDER_RATE} req/s offered, raw node:http → createNodeHandler (server CPU µs per request):`,
    );
    log(
      table(
        ['server', 'what it adds', 'req/s', 'p99 ms', 'CPU µs/req', '+ CPU µs'],
        ladderCells.map((c, i) => [
          c.kind,
          {
            'node-raw': 'collect chunks, JSON.parse, writeHead + end',
            'node-readbody': "the library's readBody() and send() instead",
            'handler:no-callbacks': 'pipeline: head, parse, validate, ack (no callback registered)',
            'handler:no-dedupe': 'enqueue + run an instant callback',
            'node-handler': 'dedupe (the full receiver)',
          }[c.kind],
          int(c.requestsPerSec),
          fixed(c.p99),
          int(c.cpuUs),
          i === 0 ? '' : int(c.cpuUs - ladderCells[i - 1].cpuUs),
        ]),
      ),
    );
  }
  // Where the receiver's time goes: the pipeline in-process, stage by stage (bench/stages.js).
  const stagesProc = await child('stages.js', { cpu: SERVER_CPU, name: 'stages' });
  const stages = await stagesProc.call('stages', { count: quick ? 1000 : 2000 }, 300_000);
  await stop(stagesProc);
  log('\nIn-process pipeline cost, CPU µs per request (no sockets; least of 5 interleaved repetitions):');
  log(
    table(
      [
        'type',
        'JSON.parse',
        'zod validate',
        'head()',
        'head+accept, no callback',
        '+ enqueue & run',
        '+ dedupe',
        'total',
        'total, free logger',
        'total, plain dispatcher',
      ],
      WEBHOOK_TYPES.map((type) => {
        const s = stages[type];
        return [
          type,
          fixed(s.jsonParse, 1),
          fixed(s.validate, 1),
          fixed(s.head, 1),
          fixed(s.acceptNoCallback, 1),
          fixed(s.acceptDedupeOff - s.acceptNoCallback, 1),
          fixed(s.acceptFull - s.acceptDedupeOff, 1),
          fixed(s.acceptFull, 1),
          fixed(s.acceptFreeLogger, 1),
          fixed(s.acceptPlainDispatcher, 1),
        ];
      }),
    ),
  );
  log(
    `(what-ifs, src/ untouched: "free logger" passes a logger whose child() and levels cost nothing; ` +
      `"plain dispatcher" a minimal in-memory dispatcher without p-queue, same ordering. ` +
      `One pino child logger alone, as the callback context makes per job: ${fixed(stages.childLogger, 1)} µs)`,
  );
  results.scenarios.throughput = {
    cells,
    stages,
    ladderRate: LADDER ? LADDER_RATE : undefined,
    ladder: LADDER ? [...ladderCells, ...expressCells] : undefined,
    ladderRuns,
    runs: runs.map(({ serverStats, ...run }) => ({ ...run, serverStats })),
  };
}

// ---------------------------------------------------------------------------------------------
// Scenario 2: ack latency while callbacks take 30 s, and 503s once the bounded queue is full.

async function scenarioSlowCallbacks(load) {
  const seconds = quick ? 1 : 3;
  const conversations = 1000;
  log(
    `\n## 2. Ack latency with 30-second callbacks (router in Express, chatbot, ${conversations} conversations, ${seconds} s per run)`,
  );
  const rows = [];
  const p99 = { instant: [], slow: [] };
  const raw = [];
  // Three rounds: the verdict compares medians, and a p99 of a few thousand samples on a busy
  // machine moves with every pause of the server.
  const rounds = quick ? 1 : 3;
  for (let round = 1; round <= rounds; round += 1) {
    for (const callbacks of round % 2 === 1 ? ['instant', 'slow'] : ['slow', 'instant']) {
      // A fresh server per run: slow callbacks pile up for 30 s, the next run must not inherit them.
      const srv = await server({
        kind: 'express-router',
        callbacks,
        callbackMs: 30_000,
        maxQueueSize: 1_000_000,
      });
      await load.call('run', {
        url: `http://127.0.0.1:${srv.hello.port}/webhooks/chatbot`,
        type: 'chatbot',
        connections: CONNECTIONS,
        durationSec: quick ? 1 : 2,
        conversations,
      });
      const run = await measure(load, srv, {
        path: '/webhooks/chatbot',
        type: 'chatbot',
        seconds,
        conversations,
      });
      await stop(srv);
      p99[callbacks].push(run.latencyOk.p99);
      raw.push({ round, callbacks, ...run });
      rows.push([
        round,
        callbacks === 'slow' ? 'callbacks take 30 s' : 'instant callbacks',
        int(run.okPerSec),
        fixed(run.latencyOk.p50),
        fixed(run.latencyOk.p99),
        non2xx(run),
        int(run.serverStats?.running),
        int(run.serverStats?.queued),
        fixed(run.serverHeapUsed / 2 ** 20, 0),
      ]);
    }
  }
  // Bounded queue: 30-second callbacks and maxQueueSize 200, so the queue fills early in the run.
  const maxQueueSize = 200;
  const srv = await server({ kind: 'express-router', callbacks: 'slow', callbackMs: 30_000, maxQueueSize });
  const full = await measure(load, srv, {
    path: '/webhooks/chatbot',
    type: 'chatbot',
    seconds,
    conversations,
  });
  await stop(srv);
  raw.push({ round: 0, callbacks: 'slow', maxQueueSize, ...full });
  log(
    table(
      ['round', 'callbacks', 'req/s', 'ack p50 ms', 'ack p99 ms', 'failed', 'running', 'queued', 'heap MiB'],
      rows,
    ),
  );
  const slowP99 = median(p99.slow);
  const instantP99 = median(p99.instant);
  const slowdown = slowP99 / instantP99;
  log(
    `ack p99: ${fixed(slowP99)} ms with 30 s callbacks vs ${fixed(instantP99)} ms instant → ${ratio(slowdown)}`,
  );
  log(
    `bounded queue (maxQueueSize ${maxQueueSize}, 30 s callbacks): ${full.answeredBeforeFill} accepted before the first 503; ` +
      `then ${percent(full.rejectedShareAfterFill)} of answers were 503; p99 of all answers ${fixed(full.latencyAll.p99)} ms; ` +
      `statuses ${JSON.stringify(full.statusCounts)}`,
  );
  target(
    'ack p99 with 30 s callbacks vs instant callbacks',
    slowdown,
    '≤ 2×',
    slowdown <= 2,
    `${fixed(slowP99)} ms vs ${fixed(instantP99)} ms`,
  );
  results.scenarios.slowCallbacks = {
    ackP99SlowMs: slowP99,
    ackP99InstantMs: instantP99,
    ratio: slowdown,
    boundedQueue: {
      maxQueueSize,
      acceptedBeforeFirst503: full.answeredBeforeFill,
      rejectedShareAfterFill: full.rejectedShareAfterFill,
      p99AllAnswersMs: full.latencyAll.p99,
      statusCounts: full.statusCounts,
    },
    runs: raw,
  };
}

// ---------------------------------------------------------------------------------------------
// Scenario 3: dedupe memory and check cost.

async function scenarioDedupe() {
  log('\n## 3. Dedupe store (default in-memory LRU, 100_000 keys)');
  const proc = await child('dedupe-memory.js', {
    cpu: SERVER_CPU,
    nodeArgs: ['--expose-gc'],
    name: 'dedupe',
  });
  const memory = await proc.call('memory', {}, 120_000);
  const checks = await proc.call('checks', {}, 120_000);
  await stop(proc);
  log(
    table(
      ['measure', 'value'],
      [
        [
          'bytes per remembered eventId (store filled to 100_000)',
          fixed(memory.bytesPerRememberedEventId, 1),
        ],
        [
          'bytes per remembered eventId (after another 100_000, evicting)',
          fixed(memory.bytesPerRememberedEventIdAfterEviction, 1),
        ],
        ['  of which preallocated by the empty store, per slot', fixed(memory.preallocatedBytesPerSlot, 1)],
        ['  the same keys in a plain Set (key strings + hash table)', fixed(memory.plainSetBytesPerKey, 1)],
        ['ns per check, new key (miss + insert + eviction)', fixed(checks.nsPerNewKeyClaim, 0)],
        ['ns per check, duplicate key (hit)', fixed(checks.nsPerDuplicateClaim, 0)],
        ['ns to build the key from a parsed payload (identity + SHA-256)', fixed(checks.nsPerKeyBuild, 0)],
        ['ns per SHA-256 digest of a session identity', fixed(checks.nsPerSessionDigest, 0)],
      ],
    ),
  );
  const worst = Math.max(memory.bytesPerRememberedEventId, memory.bytesPerRememberedEventIdAfterEviction);
  target(
    'bytes per remembered eventId (default LRU size)',
    worst,
    '≤ 200',
    worst <= 200,
    `filled ${fixed(memory.bytesPerRememberedEventId, 1)}, after eviction churn ${fixed(memory.bytesPerRememberedEventIdAfterEviction, 1)}`,
  );
  results.scenarios.dedupe = { memory, checks };
}

// ---------------------------------------------------------------------------------------------
// Scenario 4: emulator fan-out.

async function scenarioEmulator() {
  const seconds = LONG_SECONDS;
  log(`\n## 4. Emulator fan-out (deliveries/s to a receiver in another process, ${seconds} s per receiver)`);
  if (!existsSync(new URL('../dist/emulator/index.js', import.meta.url))) {
    results.scenarios.emulator = { skipped: 'dist/emulator/index.js not built' };
    log('skipped: dist/emulator/index.js not built (src/emulator missing or the build failed)');
    return;
  }
  const emulator = await child('emulator-fanout.js', { cpu: LOAD_CPU, name: 'emulator' });
  const rows = [];
  const out = {};
  for (const kind of ['node-raw', 'express-router']) {
    const srv = await server({ kind, callbacks: 'instant' });
    out[kind] = await emulator.call(
      'fanOut',
      { receiverBase: `http://127.0.0.1:${srv.hello.port}/webhooks`, durationSec: seconds },
      60_000,
    );
    await stop(srv);
    rows.push([
      kind === 'node-raw' ? 'raw node:http (ceiling)' : 'router in Express',
      int(out[kind].deliveriesPerSec),
      out[kind].delivered,
      out[kind].failed,
    ]);
  }
  await stop(emulator);
  log(table(['receiver', 'deliveries/s', 'delivered', 'failed'], rows));
  log(
    `ratio ${ratio(out['express-router'].deliveriesPerSec / out['node-raw'].deliveriesPerSec)} (the emulator delivers one at a time on a fresh connection: this is a round-trip rate)`,
  );
  results.scenarios.emulator = out;
}

// ---------------------------------------------------------------------------------------------
// Scenario 5: Redis/BullMQ mode vs in-memory.

async function startRedis() {
  const which = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (which.status !== 0) return { skipped: 'redis-server is not installed' };
  const socket = `${os.tmpdir()}/messaging-webhooks-bench-${process.pid}.sock`;
  rmSync(socket, { force: true });
  const command = [
    'redis-server',
    '--port',
    '0',
    '--unixsocket',
    socket,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
  ];
  const proc = pinned
    ? spawn('taskset', ['-c', String(LOAD_CPU), ...command], { stdio: 'ignore' })
    : spawn(command[0], command.slice(1), { stdio: 'ignore' });
  for (let i = 0; i < 50 && !existsSync(socket); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const handle = {
    socket,
    async stop() {
      children.delete(handle);
      proc.kill('SIGTERM');
      await new Promise((resolve) => (proc.exitCode === null ? proc.once('exit', resolve) : resolve()));
      rmSync(socket, { force: true });
    },
  };
  children.add(handle);
  if (!existsSync(socket)) {
    await handle.stop();
    return { skipped: 'redis-server did not start' };
  }
  return handle;
}

async function scenarioRedis(load) {
  const seconds = LONG_SECONDS;
  log(`\n## 5. Redis/BullMQ mode vs in-memory (router in Express, chatbot, ${seconds} s per run)`);
  if (!existsSync(new URL('../dist/redis/index.js', import.meta.url))) {
    results.scenarios.redis = { skipped: 'dist/redis/index.js not built (src/redis has not landed)' };
    log(`skipped: ${results.scenarios.redis.skipped}`);
    return;
  }
  const redis = await startRedis();
  if (redis.skipped) {
    results.scenarios.redis = redis;
    log(`skipped: ${redis.skipped}`);
    return;
  }
  const out = { memory: [], redis: [] };
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const mode of round % 2 === 1 ? ['memory', 'redis'] : ['redis', 'memory']) {
        const srv = await server({
          kind: 'express-router',
          callbacks: 'instant',
          ...(mode === 'redis' ? { redisPath: redis.socket } : {}),
        });
        await load.call('run', {
          url: `http://127.0.0.1:${srv.hello.port}/webhooks/chatbot`,
          type: 'chatbot',
          connections: CONNECTIONS,
          durationSec: quick ? 1 : 2,
          conversations: 1000,
        });
        out[mode].push(
          await measure(load, srv, {
            path: '/webhooks/chatbot',
            type: 'chatbot',
            seconds,
            conversations: 1000,
          }),
        );
        await stop(srv);
      }
    }
  } catch (error) {
    results.scenarios.redis = { skipped: `Redis mode failed: ${error.message.split('\n')[0]}` };
    log(`skipped: ${results.scenarios.redis.skipped}`);
    return;
  } finally {
    await redis.stop();
  }
  const summary = (mode) => ({
    requestsPerSec: median(out[mode].map((run) => run.okPerSec)),
    p50: median(out[mode].map((run) => run.latencyOk.p50)),
    p99: median(out[mode].map((run) => run.latencyOk.p99)),
    cpuUs: median(out[mode].map((run) => run.serverCpuUsPerRequest)),
    non2xx: out[mode].reduce((sum, run) => sum + non2xx(run), 0),
  });
  const memory = summary('memory');
  const redisMode = summary('redis');
  log(
    table(
      ['mode', 'req/s', 'ack p50 ms', 'ack p99 ms', 'CPU µs/req', 'failed'],
      [
        [
          'in-memory',
          int(memory.requestsPerSec),
          fixed(memory.p50),
          fixed(memory.p99),
          int(memory.cpuUs),
          memory.non2xx,
        ],
        [
          'Redis/BullMQ',
          int(redisMode.requestsPerSec),
          fixed(redisMode.p50),
          fixed(redisMode.p99),
          int(redisMode.cpuUs),
          redisMode.non2xx,
        ],
      ],
    ),
  );
  const throughputRatio = redisMode.requestsPerSec / memory.requestsPerSec;
  const p99Ratio = redisMode.p99 / memory.p99;
  log(
    `Redis/in-memory: throughput ${ratio(throughputRatio)}, ack p99 ${ratio(p99Ratio)} (redis-server on CPU ${LOAD_CPU}, no worker consuming)`,
  );
  results.scenarios.redis = { memory, redis: redisMode, throughputRatio, p99Ratio, runs: out };
}

// ---------------------------------------------------------------------------------------------
// Scenario 7: the emulator's concurrent keep-alive fan-out ÷ a bare undici loop (bench/emulator-keepalive.js).

async function scenarioEmulatorKeepAlive() {
  const seconds = LONG_SECONDS + 1;
  const concurrency = 32;
  log(
    `\n## 7. Emulator keep-alive fan-out ÷ bare undici POST loop (concurrency ${concurrency}, ${seconds} s each)`,
  );
  if (!existsSync(new URL('../dist/emulator/index.js', import.meta.url))) {
    results.scenarios.emulatorKeepAlive = { skipped: 'dist/emulator/index.js not built' };
    return;
  }
  const proc = await child('emulator-keepalive.js', { cpu: LOAD_CPU, name: 'emulator-keepalive' });
  const srv = await server({ kind: 'node-raw', callbacks: 'instant' });
  const out = await proc.call(
    'compare',
    { receiverBase: `http://127.0.0.1:${srv.hello.port}/webhooks`, durationSec: seconds, concurrency },
    120_000,
  );
  await stop(srv);
  await stop(proc);
  log(
    table(
      ['sender', 'deliveries/s', 'delivered', 'failed'],
      [
        [
          'emulator (deliveryConcurrency 32)',
          int(out.emulator.deliveriesPerSec),
          out.emulator.delivered,
          out.emulator.failed,
        ],
        ['bare undici keep-alive loop', int(out.bare.postsPerSec), out.bare.posted, out.bare.failed],
      ],
    ),
  );
  target('emulator fan-out ÷ bare loop', out.ratio, '≥ 0.6×', out.ratio >= 0.6, 'ratio, higher is better');
  log(
    `ratio ${ratio(out.ratio)}; absolute target: >= 5,000 deliveries/s when the bare loop does 8,000 (bare loop here: ${int(out.bare.postsPerSec)}/s)`,
  );
  results.scenarios.emulatorKeepAlive = out;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now();
  mkdirSync(resultsDir, { recursive: true });
  if (PROFILE) rmSync(profileDir, { recursive: true, force: true });
  log(`# messaging-webhooks bench — ${results.startedAt}`);
  log(
    `${results.machine.cpus} × ${results.machine.model}, node ${process.version}, ${pinned ? `servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU} (taskset)` : 'not pinned (no taskset)'}; load average at start ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
  const load = await child('load.js', { cpu: LOAD_CPU, name: 'load' });
  // What the scenarios that compare server kinds (6, 8; bench/lib/interleaved.js) are handed.
  const toolbox = {
    load,
    startServer: (script, config) =>
      child(script, { cpu: SERVER_CPU, args: [JSON.stringify(config)], name: config.kind }),
    stop,
    measure,
    target,
    log,
    quick,
    connections: CONNECTIONS,
    seconds: SECONDS,
    rounds: Number(args.get('adapter-rounds') ?? 1),
  };
  const scenarios = [
    () => scenarioThroughput(load),
    () => scenarioSlowCallbacks(load),
    () => scenarioDedupe(),
    () => scenarioEmulator(),
    () => scenarioRedis(load),
    // Scenario 6 (bench/adapters.js): the Fastify plugin and the fetch handler vs their frameworks.
    async () => {
      results.scenarios.adapters = await scenarioAdapters(toolbox);
    },
    // Scenario 7 (bench/emulator-keepalive.js): the emulator's keep-alive fan-out vs a bare undici loop.
    () => scenarioEmulatorKeepAlive(),
    // Scenario 8 (bench/metrics.js): the node handler with Prometheus metrics collected vs without.
    async () => {
      results.scenarios.metrics = await scenarioMetrics(toolbox);
    },
    // Scenario 9 (bench/otel.js): the node handler traced (no SDK; an SDK) vs untraced.
    async () => {
      results.scenarios.otel = await scenarioOtel(toolbox);
    },
  ];
  results.scenarioSeconds = {};
  for (const [index, scenario] of scenarios.entries()) {
    if (!wanted(index + 1)) continue;
    if ((Date.now() - started) / 1000 > BUDGET_SECONDS) {
      const reason = `time budget: ${BUDGET_SECONDS} s spent before it could start`;
      results.scenarios[`skipped${index + 1}`] = reason;
      log(`\n## ${index + 1}. skipped: ${reason}`);
      continue;
    }
    const t0 = Date.now();
    await scenario();
    results.scenarioSeconds[index + 1] = (Date.now() - t0) / 1000;
    log(`(scenario ${index + 1}: ${results.scenarioSeconds[index + 1].toFixed(0)} s)`);
  }
  await stop(load);

  if (PROFILE && existsSync(profileDir)) {
    results.profiles = {};
    for (const kind of readdirSync(profileDir)) {
      const files = readdirSync(`${profileDir}${kind}`).filter((file) => file.endsWith('.cpuprofile'));
      if (files.length === 0) continue;
      const summary = summarizeProfile(`${profileDir}${kind}/${files[0]}`);
      results.profiles[kind] = summary;
      log(`\n## Where ${kind} spends its CPU (self time, whole scenario 1)`);
      log(
        table(
          ['group', 'share'],
          summary.groups.slice(0, 14).map((g) => [g.name, percent(g.share)]),
        ),
      );
      log(
        table(
          ['function (file)', 'share'],
          summary.functions.slice(0, 20).map((f) => [f.name, percent(f.share)]),
        ),
      );
    }
  }

  log('\n## Targets');
  log(
    table(
      ['target', 'measured', 'limit', 'verdict', 'note'],
      results.targets.map((t) => [
        t.name,
        t.limit.startsWith('≤ 200') ? fixed(t.measured, 1) : ratio(t.measured),
        t.limit,
        verdict(t.pass),
        t.note ?? '',
      ]),
    ),
  );
  results.finishedAt = new Date().toISOString();
  results.elapsedSec = (Date.now() - started) / 1000;
  results.machine.loadavgAtEnd = os.loadavg();
  const file = `${resultsDir}${results.startedAt.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`\n${results.elapsedSec.toFixed(0)} s; results written to ${file}`);
}

// The whole bench must stay within 7 minutes: past that, stop every child and fail.
const WATCHDOG_MS = 420_000;
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
  .catch(async (error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
