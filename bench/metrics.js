// Scenario 8 of `npm run bench`: the node handler with Prometheus metrics collected
// (messaging-webhooks/metrics on a prom-client Registry, scraped once a second) ÷ the same handler
// without, measured like scenario 1 (same load generator, same bodies, loopback, bounded).
//
//   node handler with metrics ÷ without                                    target ≥ 0.95×
//
// Servers run bench/metrics-server.js. Rounds: --adapter-rounds=N (default 1; each round
// alternates the order of the two servers per type).
import { WEBHOOK_PATHS } from '../dist/schemas/index.js';
import { WEBHOOK_TYPES } from './lib/bodies.js';
import { fixed, geomean, int, median, ratio, table } from './lib/table.js';

const KINDS = ['node-handler', 'node-handler-metrics'];

/** Runs the scenario with the runner's toolbox (as bench/adapters.js takes it). */
export async function scenarioMetrics(bench) {
  const { load, startServer, stop, measure, target, log, quick, connections, seconds, rounds } = bench;
  log(
    `\n## 8. Metrics: node handler with collectMetrics ÷ without, ${connections} connections, ${rounds} round(s) of ${seconds} s per cell`,
  );
  const servers = {};
  for (const kind of KINDS) servers[kind] = await startServer('metrics-server.js', { kind });
  const runs = [];
  try {
    for (const kind of KINDS) {
      await load.call('run', {
        url: `http://127.0.0.1:${servers[kind].hello.port}/webhooks/chatbot`,
        type: 'chatbot',
        connections,
        durationSec: quick ? 0.5 : 1.5,
      });
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (const [index, type] of WEBHOOK_TYPES.entries()) {
        // Alternate the order per type and round so that drift in the machine's load favours neither.
        const order = (round + index) % 2 === 1 ? KINDS : [...KINDS].reverse();
        for (const kind of order) {
          const run = await measure(load, servers[kind], { path: `/webhooks/${WEBHOOK_PATHS[type]}`, type });
          runs.push({ round, kind, ...run });
          process.stdout.write('.');
        }
      }
    }
    process.stdout.write('\n');
  } finally {
    for (const started of Object.values(servers)) await stop(started);
  }

  const cell = (kind, type) => {
    const mine = runs.filter((run) => run.kind === kind && run.type === type);
    return {
      requestsPerSec: median(mine.map((run) => run.okPerSec)),
      p99: median(mine.map((run) => run.latencyOk.p99)),
      cpuUs: median(mine.map((run) => run.serverCpuUsPerRequest)),
    };
  };
  const rows = [];
  const throughput = [];
  const cpu = [];
  for (const type of WEBHOOK_TYPES) {
    const plain = cell('node-handler', type);
    const metrics = cell('node-handler-metrics', type);
    throughput.push(metrics.requestsPerSec / plain.requestsPerSec);
    cpu.push(plain.cpuUs / metrics.cpuUs);
    rows.push(
      [type, 'without', int(plain.requestsPerSec), fixed(plain.p99), int(plain.cpuUs), ''],
      [
        type,
        'with metrics',
        int(metrics.requestsPerSec),
        fixed(metrics.p99),
        int(metrics.cpuUs),
        ratio(throughput.at(-1)),
      ],
    );
  }
  const overall = geomean(throughput);
  target(
    'node handler with metrics ÷ without',
    overall,
    '≥ 0.95×',
    overall >= 0.95,
    `geometric mean over the five types; worst type ${Math.min(...throughput).toFixed(2)}×; by server CPU per request ${geomean(cpu).toFixed(2)}×`,
  );
  log(table(['type', 'node handler', 'req/s', 'p99 ms', 'CPU µs/req', 'req/s ratio'], rows));
  return { overall, perType: throughput, cpu: geomean(cpu), runs };
}
