// Scenario 8: the node handler with Prometheus metrics collected (messaging-webhooks/metrics on a
// prom-client Registry, scraped once a second; servers/metrics.js) ÷ the same handler without
// (servers/node.js), each type on its own, interleaved (bench/lib/interleaved.js), both with their
// dedupe store full (`fullStores`, servers/options.js): a store growing during some cells and not
// others is noise against a 5 % target.
//
//   node handler with metrics ÷ without                                    target ≥ 0.95×
//
// Rounds: --adapter-rounds=N (default 1; each round alternates the order of the two servers per
// type).
import { WEBHOOK_TYPES } from '../lib/bodies.js';
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { fixed, geomean, int, ratio, table } from '../lib/table.js';

const KINDS = ['node-handler', 'node-handler-metrics'];

export async function run(bench) {
  const { target, log, connections, seconds, rounds } = bench;
  log(`${connections} connections, ${rounds} round(s) of ${seconds} s per cell`);
  const runs = await measureInterleaved(bench, 'servers/serve.js', KINDS, {
    config: () => ({ fullStores: true }),
  });

  const cell = medianCell(runs);
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
