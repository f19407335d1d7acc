// Scenario 8: the node handler with Prometheus metrics collected (messaging-webhooks/metrics on a
// prom-client Registry; servers/metrics.js) ÷ the same handler without (servers/node.js), both
// with their dedupe store full (`fullStores`, servers/options.js).
//
//   node handler with metrics ÷ without                                    target ≥ 0.95×
//
// Judged by instructions per request (lib/instructions.js: both under callgrind, the mixed load,
// one scrape per measured window), which repeat from run to run; a ratio of req/s a few per cent
// from 1 does not. The req/s and CPU of one interleaved round of the mixed load are in the note
// (scraped once a second). Without instruction counts (--quick, --no-instructions, no valgrind)
// the verdict is by req/s, each type on its own, interleaved (--adapter-rounds, default 1), as a
// geometric mean over the types.
import { MIXED, WEBHOOK_TYPES } from '../lib/bodies.js';
import { benchInstructions, instructionRatio, instructionTable } from '../lib/instructions.js';
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { fixed, geomean, int, ratio, table } from '../lib/table.js';
import { CUSTOMERS } from './throughput.js';

const PLAIN = 'node-handler';
const METRICS = 'node-handler-metrics';
const KINDS = [PLAIN, METRICS];

export async function run(bench) {
  const { target, log, connections, seconds, rounds } = bench;
  const types = bench.instructions ? [MIXED] : WEBHOOK_TYPES;
  log(`${connections} connections, ${rounds} round(s) of ${seconds} s per cell, ${types.join(', ')}`);
  const runs = await measureInterleaved(bench, 'servers/serve.js', KINDS, {
    types,
    conversations: bench.instructions ? CUSTOMERS : undefined,
    config: () => ({ fullStores: true }),
  });

  const cell = medianCell(runs);
  const rows = [];
  const throughput = [];
  const cpu = [];
  for (const type of types) {
    const plain = cell(PLAIN, type);
    const metrics = cell(METRICS, type);
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
  log(table(['type', 'node handler', 'req/s', 'p99 ms', 'CPU µs/req', 'req/s ratio'], rows));
  const overall = geomean(throughput);
  const reqs = `req/s ${overall.toFixed(2)}×${types.length > 1 ? ` (geometric mean over the five types; worst type ${Math.min(...throughput).toFixed(2)}×)` : ''}, CPU per request ${geomean(cpu).toFixed(2)}×`;

  let instructions;
  if (bench.instructions) {
    const counted = await benchInstructions(bench, KINDS, { conversations: CUSTOMERS, log });
    instructions = { ...instructionRatio(counted[PLAIN], counted[METRICS]), counted };
    log(
      instructionTable(
        'node handler',
        KINDS.map((kind) => [kind === PLAIN ? 'without' : 'with metrics', counted[kind]]),
      ),
    );
  }
  const measured = instructions ? instructions.ratio : overall;
  target(
    'node handler with metrics ÷ without',
    measured,
    '≥ 0.95×',
    measured >= 0.95,
    instructions
      ? `by instructions per request, ${instructions.low.toFixed(2)}–${instructions.high.toFixed(2)}× over the windows; ${reqs}`
      : `by ${reqs}`,
  );
  return {
    overall: measured,
    instructions,
    throughput: overall,
    perType: throughput,
    cpu: geomean(cpu),
    runs,
  };
}
