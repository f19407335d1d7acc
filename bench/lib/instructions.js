// Instructions per request of a bench server, counted by valgrind's callgrind: a count that does
// not depend on the machine's load, its clock or its neighbours, so a ratio of two counts repeats
// from run to run where a ratio of requests per second does not (docs/bench.md, "How verdicts
// repeat").
//
// The server (servers/serve.js, any kind and variant) runs under callgrind with instrumentation off
// (`--instr-atstart=no`): start-up, the full dedupe stores and the warm-up run at valgrind's
// uninstrumented speed. A keep-alive client here sends the warm-up requests (JIT tiers and heap
// settle), then instrumentation is switched on and the counters zeroed, the measured requests are
// sent, and the counters are dumped: instructions ÷ requests, for the main thread (the event loop)
// and for all threads (V8's compiler and GC helpers, libuv's pool) together. The server answers
// `poke` between batches of `pokeEvery` requests (servers/serve.js): work a server does on a
// clock (the metrics server's scrape) is done per request count instead, or its share would grow
// with valgrind's slowness.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequestFactory } from './bodies.js';
import { pinned } from './proc.js';
import { int, percent, table } from './table.js';

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Whether valgrind and callgrind_control are on the PATH. */
export const hasCallgrind =
  spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('callgrind_control', ['--help'], { stdio: 'ignore' }).error === undefined;

/** Settings of the bench's instruction counts (bench/run.js: --instructions, --instr-*). */
export const INSTRUCTION_DEFAULTS = { warmup: 30_000, requests: 1000, windows: 3, connections: 8 };

/**
 * V8 flags of a server under callgrind, so that its count depends on its requests only: the
 * young generation held at the 16 MB it grows to outside valgrind (V8 sizes it from allocation per
 * millisecond, which valgrind's slowness and the machine's load set, so the scavenges per 1000
 * requests, each a fixed cost, varied with the load), the memory reducer (a timer-driven heuristic that starts full collections when allocation per
 * millisecond drops, which valgrind's slowness makes it see) off, and fixed hash and random seeds
 * (hash tables probe the same way in every run). None changes the code V8 runs for a request.
 */
const STEADY_NODE_ARGS = [
  '--no-memory-reducer',
  '--hash-seed=1',
  '--random-seed=1',
  '--min-semi-space-size=16',
];

const SERVE = fileURLToPath(new URL('../servers/serve.js', import.meta.url));

/** Starts `config`'s server under callgrind, instrumentation off; resolves once it listens. */
function startServer(config, { cpu, nodeArgs = [], script = SERVE }) {
  const out = join(
    tmpdir(),
    `callgrind-${String(config.kind).replace(':', '-')}-${process.pid}-${Date.now()}.out`,
  );
  const valgrind = [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${out}`,
    process.execPath,
    ...STEADY_NODE_ARGS,
    ...nodeArgs,
    script,
    JSON.stringify(config),
  ];
  const command = pinned && cpu !== undefined ? ['taskset', '-c', String(cpu), ...valgrind] : valgrind;
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let nextId = 1;
  const waiting = new Map();
  child.on('message', (message) => {
    const entry = message && waiting.get(message.id);
    if (entry === undefined) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new Error(message.error));
    else entry.resolve(message.result);
  });
  const call = (command) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      child.send({ id, command });
    });
  return new Promise((resolve, reject) => {
    child.once('message', (hello) => resolve({ child, port: hello.port, out, call }));
    child.once('exit', (code) =>
      reject(new Error(`${config.kind} exited (${code}) under valgrind before it was ready: ${stderr}`)),
    );
  });
}

/**
 * Sends `count` POSTs from `nextRequest` over the agent's keep-alive connections, `connections`
 * at a time. The warm-up and the measured requests share one agent, so its sockets: new sockets
 * in the measured window made V8 deoptimise and recompile node's stream and http functions there.
 */
export async function send(agent, port, nextRequest, count, connections) {
  let left = count;
  let failed = 0;
  // A keep-alive socket the server closed while idle (Node's 5 s keepAliveTimeout, which a server
  // slowed down by valgrind can reach) resets the next request on it: sent again once.
  const one = (request, retried = false) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          path: request.path,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(request.body),
          },
        },
        (res) => {
          if (res.statusCode !== 200) failed += 1;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', (error) => {
        if (error.code === 'ECONNRESET' && !retried) one(request, true).then(resolve, reject);
        else reject(error);
      });
      req.end(request.body);
    });
  const lane = async () => {
    while (left > 0) {
      left -= 1;
      await one(nextRequest());
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  if (failed > 0) throw new Error(`${failed} answers were not 200`);
}

function control(pid, ...flags) {
  const result = spawnSync('callgrind_control', [...flags, String(pid)], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0)
    throw new Error(`callgrind_control ${flags.join(' ')}: ${result.stderr || result.stdout}`);
}

/** The instruction total of one callgrind dump. */
function totalOf(file) {
  const match = /^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error(`no totals in ${file}`);
  return Number(match[1]);
}

/**
 * Counts the instructions per request of one server. Options:
 *   config        the server's config (servers/serve.js: `{ kind, ...options }`)
 *   type          the load (a webhook type, or `mixed`: the five in turn)
 *   conversations customers the chatbot and incoming events are spread over
 *   warmup        requests before the measured window (uninstrumented)
 *   requests      requests in each measured window
 *   windows       measured windows, one after another (default 3): the counts are their mean
 *   connections   keep-alive connections of the client
 *   pokeEvery     requests between two `poke`s of the server (undefined: none)
 *   cpu           the CPU the server is pinned to (taskset), when pinning is available
 *   nodeArgs      node flags of the server
 *   keep          keep the dumps and return their paths (for callgrind_annotate)
 *   script        the server's script (default servers/serve.js), argv[2] its JSON config
 * Returns `{ perRequest, mainPerRequest, windows: [{ perRequest, mainPerRequest }], phases, dumps? }`:
 * the means over the windows, each window's counts, and the seconds each phase took.
 */
export async function countInstructions({
  config,
  type,
  conversations,
  warmup,
  requests,
  connections = 8,
  windows = 3,
  pokeEvery,
  cpu,
  nodeArgs,
  keep = false,
  script,
}) {
  const t0 = Date.now();
  const server = await startServer(config, { cpu, nodeArgs, script });
  const phases = { startSec: (Date.now() - t0) / 1000 };
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const nextRequest = createRequestFactory(type, { conversations });
  const batches = async (count) => {
    const step = pokeEvery ?? count;
    for (let sent = 0; sent < count; sent += step) {
      await send(agent, server.port, nextRequest, Math.min(step, count - sent), connections);
      if (pokeEvery !== undefined) await server.call('poke');
    }
  };
  try {
    const t1 = Date.now();
    await batches(warmup);
    phases.warmupSec = (Date.now() - t1) / 1000;
    const t2 = Date.now();
    // Instrumentation on, counters zeroed: each dump then holds one measured window only (a dump
    // zeroes the counters again).
    control(server.child.pid, '--instr=on');
    control(server.child.pid, '-z');
    const windowCounts = [];
    const kept = [];
    for (let window = 1; window <= windows; window += 1) {
      await batches(requests);
      control(server.child.pid, '-d');
      // callgrind_control -d writes <out>.<n>-<thread> (threads separated): dump n, one file per
      // thread; thread 01 is the main thread.
      const dumps = readdirSync(tmpdir())
        .filter((name) => name.startsWith(`${basename(server.out)}.${window}-`))
        .map((name) => join(tmpdir(), name));
      const main = dumps.find((file) => file.endsWith('-01'));
      windowCounts.push({
        perRequest: dumps.reduce((sum, file) => sum + totalOf(file), 0) / requests,
        mainPerRequest: main === undefined ? Number.NaN : totalOf(main) / requests,
      });
      if (keep) kept.push(...dumps);
      else for (const file of dumps) rmSync(file, { force: true });
    }
    phases.windowsSec = (Date.now() - t2) / 1000;
    // The mean over the windows (all their instructions ÷ all their requests), not the median:
    // a collection is real work, and falls in one window or another.
    return {
      phases,
      perRequest: mean(windowCounts.map((w) => w.perRequest)),
      mainPerRequest: mean(windowCounts.map((w) => w.mainPerRequest)),
      windows: windowCounts,
      ...(keep ? { dumps: kept } : {}),
    };
  } finally {
    agent.destroy();
    server.child.kill('SIGKILL');
    const prefix = basename(server.out);
    for (const name of readdirSync(tmpdir())) {
      if (name.startsWith(prefix) && !(keep && /\.\d+-\d+$/.test(name)))
        rmSync(join(tmpdir(), name), { force: true });
    }
  }
}

/**
 * Runs `jobs` (functions returning promises) on `lanes` lanes at once, each job given its lane's
 * index; resolves with their results in order. Instruction counts do not depend on what else runs,
 * so two servers under callgrind, one per CPU, halve the wall time and change no count.
 */
export async function inLanes(jobs, lanes) {
  const results = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, jobs.length) }, async (_, lane) => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await jobs[index](lane);
      }
    }),
  );
  return results;
}

/**
 * Instruction counts of server kinds for the bench's ratio targets (scenarios 1, 8 and 9): each
 * kind's server under callgrind (`{ kind, fullStores: true }`: every dedupe store full, as in the
 * req/s rounds), two at a time, one per CPU (a count does not depend on what runs beside it), the
 * mixed load over `conversations` customers, a metrics scrape once per window (`poke`, instead of
 * once a second). A kind is counted once per run: `bench.instructionCache` keeps the counts, so a
 * server two scenarios share (the node handler of 1, 8 and 9) is counted once. Returns
 * `{ [kind]: { perRequest, mainPerRequest, windows } }`.
 */
export async function benchInstructions(bench, kinds, { conversations, log = () => undefined }) {
  const settings = { ...INSTRUCTION_DEFAULTS, ...bench.instructionSettings };
  const cache = (bench.instructionCache ??= new Map());
  const missing = [...new Set(kinds)].filter((kind) => !cache.has(kind));
  const started = Date.now();
  await inLanes(
    missing.map((kind) => async (lane) => {
      const counted = await countInstructions({
        config: { kind, fullStores: true, scrapeEveryMs: 0 },
        type: 'mixed',
        conversations,
        warmup: settings.warmup,
        requests: settings.requests,
        windows: settings.windows,
        connections: settings.connections,
        pokeEvery: settings.requests,
        cpu: lane,
      });
      cache.set(kind, counted);
      process.stdout.write('.');
    }),
    2,
  );
  if (missing.length > 0) {
    process.stdout.write('\n');
    log(
      `instructions: ${missing.length} server(s) under callgrind in ${((Date.now() - started) / 1000).toFixed(0)} s ` +
        `(${settings.warmup} warm-up requests, ${settings.windows} windows of ${settings.requests}, main thread, mean of the windows)`,
    );
  }
  return Object.fromEntries(kinds.map((kind) => [kind, cache.get(kind)]));
}

/**
 * A "higher is better" ratio of instruction counts, `baseline ÷ measured` (main thread, mean of
 * the windows), with the range its windows allow: the lowest and highest ratio of any window of one
 * against any window of the other.
 */
export function instructionRatio(baseline, measured) {
  const ofBaseline = baseline.windows.map((w) => w.mainPerRequest);
  const ofMeasured = measured.windows.map((w) => w.mainPerRequest);
  return {
    ratio: baseline.mainPerRequest / measured.mainPerRequest,
    low: Math.min(...ofBaseline) / Math.max(...ofMeasured),
    high: Math.max(...ofBaseline) / Math.min(...ofMeasured),
  };
}

/** The spread of a kind's windows: (highest − lowest) ÷ their mean, main thread. */
function windowSpread(counted) {
  const counts = counted.windows.map((w) => w.mainPerRequest);
  return (Math.max(...counts) - Math.min(...counts)) / counted.mainPerRequest;
}

/**
 * The table of instruction counts the scenarios print: one row per `[label, counted]` (a
 * countInstructions result), under `heading`: main thread, each window, their spread, all threads.
 */
export function instructionTable(heading, rows) {
  return table(
    [heading, 'instructions/req (main thread)', 'windows', 'spread', 'all threads'],
    rows.map(([label, counted]) => [
      label,
      int(counted.mainPerRequest),
      counted.windows.map((w) => int(w.mainPerRequest)).join(' '),
      percent(windowSpread(counted)),
      int(counted.perRequest),
    ]),
  );
}
