// Scenario 9: the node handler traced with messaging-webhooks/otel (servers/otel.js) ÷ the same
// handler untraced (servers/node.js), measured like scenario 8 (each type on its own,
// interleaved rounds, dedupe stores full: `fullStores`, servers/options.js).
//
//   traced, @opentelemetry/api without an SDK (no-op tracer) ÷ untraced        target ≥ 0.98×
//   traced with an SDK and an exporter that drops the spans ÷ untraced         reported
//
// Rounds: --adapter-rounds=N (default 1).
import { WEBHOOK_TYPES } from '../lib/bodies.js';
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { fixed, geomean, int, ratio, table } from '../lib/table.js';

const PLAIN = 'node-handler';
const NOOP = 'node-handler-otel-noop';
const SDK = 'node-handler-otel-sdk';
const LABELS = { [PLAIN]: 'untraced', [NOOP]: 'traced, no SDK', [SDK]: 'traced, SDK' };

export async function run(bench) {
  const { target, log, connections, seconds, rounds } = bench;
  log(`${connections} connections, ${rounds} round(s) of ${seconds} s per cell`);
  const runs = await measureInterleaved(bench, 'servers/serve.js', [PLAIN, NOOP, SDK], {
    config: () => ({ fullStores: true }),
  });
  const cell = medianCell(runs);
  const rows = [];
  const ratios = { [NOOP]: [], [SDK]: [] };
  const cpu = { [NOOP]: [], [SDK]: [] };
  for (const type of WEBHOOK_TYPES) {
    const plain = cell(PLAIN, type);
    rows.push([type, LABELS[PLAIN], int(plain.requestsPerSec), fixed(plain.p99), int(plain.cpuUs), '']);
    for (const kind of [NOOP, SDK]) {
      const traced = cell(kind, type);
      ratios[kind].push(traced.requestsPerSec / plain.requestsPerSec);
      cpu[kind].push(plain.cpuUs / traced.cpuUs);
      rows.push([
        type,
        LABELS[kind],
        int(traced.requestsPerSec),
        fixed(traced.p99),
        int(traced.cpuUs),
        ratio(ratios[kind].at(-1)),
      ]);
    }
  }
  const noop = geomean(ratios[NOOP]);
  const sdk = geomean(ratios[SDK]);
  target(
    'node handler traced, API without SDK ÷ untraced',
    noop,
    '≥ 0.98×',
    noop >= 0.98,
    `geometric mean over the five types; worst type ${Math.min(...ratios[NOOP]).toFixed(2)}×; by server CPU per request ${geomean(cpu[NOOP]).toFixed(2)}×`,
  );
  target(
    'node handler traced, SDK + dropping exporter ÷ untraced',
    sdk,
    'reported',
    undefined,
    `geometric mean over the five types; worst type ${Math.min(...ratios[SDK]).toFixed(2)}×; by server CPU per request ${geomean(cpu[SDK]).toFixed(2)}×`,
  );
  log(table(['type', 'node handler', 'req/s', 'p99 ms', 'CPU µs/req', 'req/s ratio'], rows));
  return {
    noop,
    sdk,
    perType: ratios,
    cpu: { noop: geomean(cpu[NOOP]), sdk: geomean(cpu[SDK]) },
    runs,
  };
}
