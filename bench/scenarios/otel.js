// Scenario 9: the node handler traced with messaging-webhooks/otel (servers/otel.js) ÷ the same
// handler untraced (servers/node.js), measured like scenario 8 (instructions per request for the
// verdicts, one interleaved req/s round in the notes; dedupe stores full: `fullStores`,
// servers/options.js).
//
//   traced, @opentelemetry/api without an SDK (no-op tracer) ÷ untraced        target ≥ 0.98×
//   traced with an SDK and an exporter that drops the spans ÷ untraced         reported
//
// Without instruction counts: by req/s, each type on its own (--adapter-rounds, default 1).
import { MIXED, WEBHOOK_TYPES } from '../lib/bodies.js';
import { benchInstructions, instructionRatio, instructionTable } from '../lib/instructions.js';
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { fixed, geomean, int, ratio, table } from '../lib/table.js';
import { CUSTOMERS } from './throughput.js';

const PLAIN = 'node-handler';
const NOOP = 'node-handler-otel-noop';
const SDK = 'node-handler-otel-sdk';
const KINDS = [PLAIN, NOOP, SDK];
const LABELS = { [PLAIN]: 'untraced', [NOOP]: 'traced, no SDK', [SDK]: 'traced, SDK' };

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
  const ratios = { [NOOP]: [], [SDK]: [] };
  const cpu = { [NOOP]: [], [SDK]: [] };
  for (const type of types) {
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
  log(table(['type', 'node handler', 'req/s', 'p99 ms', 'CPU µs/req', 'req/s ratio'], rows));
  const reqs = (kind) =>
    `req/s ${geomean(ratios[kind]).toFixed(2)}×${types.length > 1 ? ` (geometric mean over the five types; worst type ${Math.min(...ratios[kind]).toFixed(2)}×)` : ''}, CPU per request ${geomean(cpu[kind]).toFixed(2)}×`;

  let counted;
  if (bench.instructions) {
    counted = await benchInstructions(bench, KINDS, { conversations: CUSTOMERS, log });
    log(
      instructionTable(
        'node handler',
        KINDS.map((kind) => [LABELS[kind], counted[kind]]),
      ),
    );
  }
  const verdict = (kind) => {
    const instructions = counted ? instructionRatio(counted[PLAIN], counted[kind]) : undefined;
    const measured = instructions ? instructions.ratio : geomean(ratios[kind]);
    const note = instructions
      ? `by instructions per request, ${instructions.low.toFixed(2)}–${instructions.high.toFixed(2)}× over the windows; ${reqs(kind)}`
      : `by ${reqs(kind)}`;
    return { measured, instructions, note };
  };
  const noop = verdict(NOOP);
  const sdk = verdict(SDK);
  target(
    'node handler traced, API without SDK ÷ untraced',
    noop.measured,
    '≥ 0.98×',
    noop.measured >= 0.98,
    noop.note,
  );
  target(
    'node handler traced, SDK + dropping exporter ÷ untraced',
    sdk.measured,
    'reported',
    undefined,
    sdk.note,
  );
  return {
    noop: noop.measured,
    sdk: sdk.measured,
    instructions: counted && { noop: noop.instructions, sdk: sdk.instructions, counted },
    perType: ratios,
    cpu: { noop: geomean(cpu[NOOP]), sdk: geomean(cpu[SDK]) },
    runs,
  };
}
