// The CPU cost of tracing one request through the pipeline, without HTTP (a stricter ratio than
// scenario 9's: the node handler's HTTP work is left out of the denominator). Each kind runs in a
// process of its own (an SDK registers a global context manager), in rounds that alternate the
// order; each process drives pipeline.head() + accept() with the load generator's bodies and
// reports process.cpuUsage() per request, callbacks included. CPU time rather than wall time:
// the machine is shared. Not part of `npm run bench`:
//
//   npm run build && node bench/tools/otel-cost.js [--rounds=5] [--requests=50000]
//   npm run build && node bench/tools/otel-cost.js --callgrind [--requests=2000]   (instruction counts)
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createProgram, integer, Option, parseArgs } from '../lib/args.js';
import { createBodyFactory, WEBHOOK_TYPES } from '../lib/bodies.js';

const KINDS = ['untraced', 'traced-noop', 'traced-sdk'];
const options = parseArgs(
  createProgram('otel-cost', "Tracing's CPU time (or instructions) per request, pipeline only.")
    .option('--rounds <n>', 'rounds, each kind once per round', integer(), 5)
    .option('--requests <n>', 'requests per measurement (default 50 000; --callgrind 2 000)', integer())
    .option('--callgrind', 'count instructions under callgrind instead of timing')
    .addOption(new Option('--child <kind>', 'internal: run one kind and report').choices(KINDS).hideHelp()),
);

async function child(kind, requests) {
  const { createNodeHandler } = await import('../../dist/index.js');
  const { WEBHOOK_PATHS } = await import('../../dist/schemas/index.js');
  const handler = async () => {};
  const receiver = createNodeHandler({
    onIncoming: handler,
    onStatus: handler,
    onSession: handler,
    onEvent: handler,
    onChatbot: handler,
  });
  if (kind === 'traced-noop') {
    const { traceWebhooks } = await import('../../dist/otel/index.js');
    traceWebhooks(receiver);
  } else if (kind === 'traced-sdk') {
    const { context } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
    const { traceWebhooks } = await import('../../dist/otel/index.js');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const exporter = { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
    traceWebhooks(receiver, {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }),
    });
  }
  const { pipeline } = receiver;
  const bodies = WEBHOOK_TYPES.map((type) => ({
    url: `/${WEBHOOK_PATHS[type]}`,
    next: createBodyFactory(type),
  }));
  const headers = { 'content-type': 'application/json' };
  const run = async (count) => {
    for (let i = 0; i < count; i += 1) {
      const { url, next } = bodies[i % bodies.length];
      const raw = Buffer.from(next());
      const head = pipeline.head({ method: 'POST', url, header: (name) => headers[name] });
      const answer = await pipeline.accept(head, { raw });
      if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.body}`);
      if (i % 500 === 499) await pipeline.idle();
    }
    await pipeline.idle();
  };
  await run(Math.min(requests, 20_000)); // warm-up
  const bodyCost = process.cpuUsage();
  for (let i = 0; i < requests; i += 1) Buffer.from(bodies[i % bodies.length].next());
  const bodyUs = process.cpuUsage(bodyCost);
  const before = process.cpuUsage();
  await run(requests);
  const used = process.cpuUsage(before);
  // The body factory's own cost (a UUID, concatenations) is measured apart and taken off.
  const us = used.user + used.system - (bodyUs.user + bodyUs.system);
  if (process.send) process.send({ kind, usPerRequest: us / requests });
  else console.log(JSON.stringify({ kind, usPerRequest: us / requests }));
  await pipeline.close(1000);
  process.exit(0);
}

/** Instructions of one child under callgrind (immune to the machine's load). */
function instructions(kind, requests) {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--callgrind-out-file=/dev/null',
        process.execPath,
        fileURLToPath(import.meta.url),
        `--child=${kind}`,
        `--requests=${requests}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.on('exit', () => {
      const match = /Collected : (\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`callgrind gave no count for ${kind}: ${stderr.slice(-500)}`));
    });
  });
}

/**
 * --callgrind: instructions per request, from two runs per kind (N and 2N requests, each after a
 * warm-up of as many): the difference over the extra 2N requests leaves start-up out. The six
 * runs go in parallel (counts do not depend on the load).
 */
async function mainCallgrind() {
  const n = options.requests ?? 2000;
  const counts = await Promise.all(
    KINDS.map(async (kind) => {
      const [once, twice] = await Promise.all([instructions(kind, n), instructions(kind, 2 * n)]);
      console.log(`${kind}: ${once} instructions for ${2 * n} requests, ${twice} for ${4 * n}`);
      return (twice - once) / (2 * n);
    }),
  );
  const per = Object.fromEntries(KINDS.map((kind, index) => [kind, counts[index]]));
  for (const kind of KINDS) {
    console.log(
      `${kind.padEnd(12)} ${Math.round(per[kind]).toString().padStart(8)} instructions/request  untraced ÷ this ${(per.untraced / per[kind]).toFixed(3)}×`,
    );
  }
}

async function main() {
  if (options.callgrind) return await mainCallgrind();
  const { rounds } = options;
  const requests = options.requests ?? 50_000;
  const results = Object.fromEntries(KINDS.map((kind) => [kind, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const kind of order) {
      const result = await new Promise((resolve, reject) => {
        const proc = fork(fileURLToPath(import.meta.url), [`--child=${kind}`, `--requests=${requests}`]);
        proc.on('message', resolve);
        proc.on('exit', (code) => code !== 0 && reject(new Error(`${kind} exited ${code}`)));
      });
      results[kind].push(result.usPerRequest);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = median(results.untraced);
  for (const kind of KINDS) {
    const us = median(results[kind]);
    console.log(
      `${kind.padEnd(12)} ${us.toFixed(2).padStart(7)} µs/request (median of ${rounds}: ${results[kind]
        .map((value) => value.toFixed(2))
        .join(', ')})  untraced ÷ this ${(base / us).toFixed(3)}×`,
    );
  }
}

if (options.child) await child(options.child, options.requests);
else await main();
