// The per-request cost of collectMetrics, counted rather than timed: the node handler's pipeline
// driven in-process (no sockets, as bench/workers/stages.js does), with or without metrics collected, for a
// fixed number of requests of every type. Run it under callgrind, which counts instructions and is
// immune to the load of a shared machine, and compare the two totals:
//
//   npm run build
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.plain   node bench/tools/metrics-profile.js plain
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.metrics node bench/tools/metrics-profile.js metrics
//   callgrind_annotate /tmp/cg.metrics | head -40
//
// Without valgrind it prints CPU µs per request of each variant (least of 5, interleaved).
// Arguments: [variant: plain | metrics | both (default) | phased] [requests per type, default
// 4000] [phased: the named pipe to block on] [phased: plain | metrics, that variant alone].
import { Registry } from 'prom-client';
import { createNodeHandler } from '../../dist/index.js';
import { collectMetrics } from '../../dist/metrics/index.js';
import { WEBHOOK_PATHS } from '../../dist/schemas/index.js';
import { Argument } from 'commander';
import { createProgram, integer, parseArgs } from '../lib/args.js';
import { createBodyFactory, WEBHOOK_TYPES } from '../lib/bodies.js';

const program = createProgram('metrics-profile', 'The per-request cost of collectMetrics, in-process.')
  .addArgument(new Argument('[variant]').choices(['plain', 'metrics', 'both', 'phased']).default('both'))
  .addArgument(new Argument('[requests]', 'requests per type').argParser(integer()).default(4000))
  .argument('[fifo]', 'phased: the named pipe read between phases')
  .addArgument(new Argument('[only]', 'phased: that variant alone').choices(['plain', 'metrics']));
parseArgs(program);
const [variant, count, fifo, only] = program.processedArgs;
const instant = async () => {};

function receiver(withMetrics) {
  const handler = createNodeHandler({
    onIncoming: instant,
    onStatus: instant,
    onSession: instant,
    onEvent: instant,
    onChatbot: instant,
  });
  if (withMetrics) collectMetrics(handler, { registry: new Registry() });
  return handler;
}

const headers = { 'content-type': 'application/json', 'content-length': '500' };
const header = (name) => headers[name];
const bodies = Object.fromEntries(
  WEBHOOK_TYPES.map((type) => {
    const next = createBodyFactory(type);
    return [type, () => Buffer.from(next())];
  }),
);

/** `count` requests of each type through `handler`'s pipeline; resolves once every callback ran. */
async function drive(handler) {
  const { pipeline } = handler;
  for (const type of WEBHOOK_TYPES) {
    const request = { method: 'POST', url: `/${WEBHOOK_PATHS[type]}`, header };
    for (let i = 0; i < count; i += 1) {
      const answer = pipeline.accept(pipeline.head(request), { raw: bodies[type]() });
      if (answer instanceof Promise) await answer;
    }
  }
  await pipeline.idle();
}

async function cpuOf(handler) {
  const start = process.cpuUsage();
  await drive(handler);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (count * WEBHOOK_TYPES.length);
}

if (variant === 'phased') {
  // For callgrind_control: both variants warmed in one process, then plain, metrics, plain, ...
  // each preceded by a line `PHASE <name>` and a blocking read of the named pipe `fifo`, during
  // which the driver dumps the counters (`callgrind_control -d <pid>`): dump k+1 minus nothing,
  // i.e. each dump holds the instructions of the phase before it.
  const { readFileSync } = await import('node:fs');
  // `only`, plain or metrics: that variant alone (no feedback shared with the other one, as in
  // the HTTP benchmark where each variant is its own process).
  const handlers =
    only === undefined
      ? { plain: receiver(false), metrics: receiver(true) }
      : { [only]: receiver(only === 'metrics') };
  for (let warm = 0; warm < 4; warm += 1) for (const handler of Object.values(handlers)) await drive(handler);
  const phases =
    only === undefined
      ? ['plain', 'metrics', 'plain', 'metrics', 'plain', 'metrics', 'end']
      : [only, only, only, only, only, only, 'end'];
  for (const phase of phases) {
    // A full collection (node --expose-gc) before each dump: each phase pays for its own garbage.
    globalThis.gc?.();
    process.stdout.write(`PHASE ${phase}\n`);
    readFileSync(fifo);
    if (phase !== 'end') await drive(handlers[phase]);
  }
} else if (variant === 'plain' || variant === 'metrics') {
  await drive(receiver(variant === 'metrics'));
} else {
  const handlers = { plain: receiver(false), metrics: receiver(true) };
  for (const handler of Object.values(handlers)) await drive(handler); // warm-up
  const best = { plain: Infinity, metrics: Infinity };
  for (let repeat = 0; repeat < 5; repeat += 1) {
    for (const [name, handler] of Object.entries(handlers))
      best[name] = Math.min(best[name], await cpuOf(handler));
  }
  process.stdout.write(
    `plain ${best.plain.toFixed(2)} µs/req, metrics ${best.metrics.toFixed(2)} µs/req, plain ÷ metrics ${(best.plain / best.metrics).toFixed(3)}×\n`,
  );
}
