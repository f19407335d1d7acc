// Scenario of `npm run bench`: the cost of the replica acknowledgement. A receiver in Redis mode
// (createNodeHandler, the Redis dedupe store, the BullMQ dispatcher; no worker) against a primary
// with one replica, measured with the default acknowledgement (200 once the job is on the
// primary) and with `waitForReplicas: { replicas: 1 }` (200 once it is also on the replica: a
// marker write and a WAIT after the add, one per partition at a time), interleaved in one run.
//
//   waitForReplicas: 1 ÷ default, chatbot events, 1,000 conversations   target ≥ LIMIT (req/s)
//
// The primary and its replica run on loopback (clients over the primary's unix socket, the
// replica over TCP), pinned with the load generator's CPU like scenario 5's Redis. Redis is
// emptied (FLUSHALL, a private server) before each run so every run starts from the same state.
//
// `run(bench)` takes the runner's toolbox (bench/run.js main()). On its own:
//   npm run build && node bench/scenarios/redis-wait.js [--quick]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { createMeasure } from '../lib/measure.js';
import { LOAD_CPU, pinned, SERVER_CPU, startChild } from '../lib/proc.js';
import { fixed, int, median, ratio, table } from '../lib/table.js';

/** Throughput with the replica acknowledgement ÷ without, at least (measured: docs/redis.md). */
const LIMIT = 0.6;
const REDIS_CPU = 1;
const CONVERSATIONS = 1000;

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A primary (TCP port and unix socket) and its replica; resolves once the replica is in sync. */
async function startPrimaryAndReplica() {
  const which = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (which.error !== undefined || which.status !== 0) return { skipped: 'redis-server is not installed' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mw-bench-wait-'));
  const socket = path.join(dir, 'primary.sock');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const common = [
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
  ];
  const launch = (args) => {
    const command = ['redis-server', ...common, '--dir', dir, ...args];
    return pinned
      ? spawn('taskset', ['-c', String(REDIS_CPU), ...command], { stdio: 'ignore' })
      : spawn(command[0], command.slice(1), { stdio: 'ignore' });
  };
  const procs = [
    launch(['--port', String(primaryPort), '--unixsocket', socket, '--repl-diskless-sync-delay', '0']),
    launch(['--port', String(replicaPort), '--replicaof', '127.0.0.1', String(primaryPort)]),
  ];
  const stop = async () => {
    await Promise.all(
      procs.map((proc) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return undefined;
        proc.kill('SIGKILL');
        return new Promise((resolve) => proc.once('exit', resolve));
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 50 && !existsSync(socket); i += 1) await sleep(100);
  const replica = new Redis({ port: replicaPort, lazyConnect: true, maxRetriesPerRequest: 0 });
  replica.on('error', () => undefined);
  let synced = false;
  try {
    await replica.connect();
    for (let i = 0; i < 100 && !synced; i += 1) {
      synced = (await replica.info('replication')).includes('master_link_status:up');
      if (!synced) await sleep(100);
    }
  } catch {
    synced = false;
  } finally {
    replica.disconnect();
  }
  if (!synced) {
    await stop();
    return { skipped: 'the primary and its replica did not start' };
  }
  return { socket, primaryPort, replicaPort, stop };
}

/** Runs the scenario; returns what it measured (or why it was skipped). */
export async function run(bench) {
  const { load, startServer, stop, measure, target, log, quick } = bench;
  const seconds = quick ? 1 : 2;
  const rounds = quick ? 1 : 3;
  log(
    `\n## Redis mode: waitForReplicas: 1 vs the default acknowledgement (node handler, chatbot, a primary + 1 replica, ${rounds} round(s) of ${seconds} s)`,
  );
  if (!existsSync(new URL('../../dist/redis/index.js', import.meta.url))) {
    const skipped = 'dist/redis/index.js not built (npm run build)';
    log(`skipped: ${skipped}`);
    return { skipped };
  }
  const redis = await startPrimaryAndReplica();
  if (redis.skipped) {
    log(`skipped: ${redis.skipped}`);
    return redis;
  }
  const admin = new Redis({ path: redis.socket });
  const modes = { default: 0, waitForReplicas: 1 };
  const servers = {};
  const out = { default: [], waitForReplicas: [] };
  try {
    for (const [mode, replicas] of Object.entries(modes)) {
      servers[mode] = await startServer('scenarios/redis-wait-server.js', {
        kind: `redis-${mode}`,
        redisPath: redis.socket,
        replicas,
      });
    }
    for (const mode of Object.keys(modes)) {
      await load.call('run', {
        url: `http://127.0.0.1:${servers[mode].hello.port}/webhooks/chatbot`,
        type: 'chatbot',
        connections: bench.connections,
        durationSec: quick ? 0.5 : 1.5,
        conversations: CONVERSATIONS,
      });
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of round % 2 === 1 ? ['default', 'waitForReplicas'] : ['waitForReplicas', 'default']) {
        // Same starting state for every run: an empty Redis, the replica caught up.
        await admin.flushall();
        await admin.call('WAIT', 1, 5000);
        out[mode].push(
          await measure(load, servers[mode], {
            path: '/webhooks/chatbot',
            type: 'chatbot',
            seconds,
            conversations: CONVERSATIONS,
          }),
        );
        process.stdout.write('.');
      }
    }
    process.stdout.write('\n');
  } finally {
    admin.disconnect();
    for (const started of Object.values(servers)) await stop(started);
    await redis.stop();
  }
  const failed = (run) =>
    Object.entries(run.statusCounts)
      .filter(([status]) => !status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, run.errors ?? 0);
  const summary = (mode) => ({
    requestsPerSec: median(out[mode].map((run) => run.okPerSec)),
    p50: median(out[mode].map((run) => run.latencyOk.p50)),
    p99: median(out[mode].map((run) => run.latencyOk.p99)),
    cpuUs: median(out[mode].map((run) => run.serverCpuUsPerRequest)),
    failed: out[mode].reduce((sum, run) => sum + failed(run), 0),
  });
  const plain = summary('default');
  const waited = summary('waitForReplicas');
  log(
    table(
      ['acknowledgement', 'req/s', 'ack p50 ms', 'ack p99 ms', 'CPU µs/req', 'failed'],
      [
        ['job on the primary (default)', plain, 'default'],
        ['job on 1 replica (waitForReplicas: 1)', waited, 'waitForReplicas'],
      ].map(([label, s]) => [
        label,
        int(s.requestsPerSec),
        fixed(s.p50),
        fixed(s.p99),
        int(s.cpuUs),
        s.failed,
      ]),
    ),
  );
  const throughputRatio = waited.requestsPerSec / plain.requestsPerSec;
  const p99Ratio = waited.p99 / plain.p99;
  log(
    `waitForReplicas: 1 ÷ default: ${ratio(throughputRatio)} req/s, ${ratio(p99Ratio)} ack p99, ${ratio(
      waited.cpuUs / plain.cpuUs,
    )} server CPU per request`,
  );
  target(
    'Redis mode, waitForReplicas: 1 ÷ default acknowledgement (req/s, chatbot, 1 replica)',
    throughputRatio,
    `≥ ${LIMIT.toFixed(2)}×`,
    throughputRatio >= LIMIT && plain.failed === 0 && waited.failed === 0,
    `ack p99 ${ratio(p99Ratio)}; failed ${plain.failed} / ${waited.failed}`,
  );
  return { default: plain, waitForReplicas: waited, throughputRatio, p99Ratio, runs: out };
}

// On its own: a minimal toolbox (the load generator, servers, one measurement per run).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const children = new Set();
  const child = async (script, options) => {
    const started = await startChild(script, options);
    children.add(started);
    return started;
  };
  const stopChild = async (started) => {
    children.delete(started);
    await started.stop();
  };
  const targets = [];
  const load = await child('workers/load.js', { cpu: LOAD_CPU, name: 'load' });
  const bench = {
    load,
    startServer: (script, config) =>
      child(script, { cpu: SERVER_CPU, args: [JSON.stringify(config)], name: config.kind }),
    stop: stopChild,
    measure: createMeasure({ connections: 50, seconds: quick ? 1 : 1.5 }),
    target: (name, measured, limit, pass, note) => targets.push({ name, measured, limit, pass, note }),
    log: (...parts) => console.log(...parts),
    quick,
    connections: 50,
    seconds: quick ? 1 : 1.5,
    rounds: 1,
  };
  try {
    const startedAt = new Date().toISOString();
    const result = await run(bench);
    for (const t of targets) {
      console.log(
        `${t.pass ? 'PASS' : 'FAIL'} ${t.name}: ${ratio(t.measured)} (limit ${t.limit}; ${t.note})`,
      );
    }
    const dir = fileURLToPath(new URL('../results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `redis-wait-${startedAt.replace(/[:.]/g, '-')}.json`);
    const machine = { cpus: os.cpus().length, node: process.version, pinned, loadavgAtStart: os.loadavg() };
    writeFileSync(file, JSON.stringify({ startedAt, machine, result, targets }, null, 2));
    console.log(`written to ${path.relative(process.cwd(), file)}`);
  } finally {
    await Promise.all([...children].map((started) => stopChild(started)));
  }
}
