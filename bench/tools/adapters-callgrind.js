// Instructions per request of the bench's servers, counted by valgrind's callgrind
// (bench/lib/instructions.js, as scenarios 1, 8 and 9 count them for their verdicts): immune to
// the load of other processes on the machine, unlike req/s. Each server (bench/servers/serve.js,
// any kind and variant, its dedupe store full as in scenario 1) runs under callgrind with
// instrumentation off during start-up and `--warmup` requests, then on for `--windows` windows
// of `--requests` more: instructions ÷ requests, main thread and all threads, each window's and
// their mean.
//
//   node bench/tools/adapters-callgrind.js [--kinds=fastify-peer,fastify-plugin] [--types=chatbot,mixed]
//                                    [--warmup=20000] [--requests=2000] [--connections=8] [--lanes=2] [--keep]
//
// --keep: leave each dump (the measured window only) in the temp directory and print its path,
// for `callgrind_annotate --inclusive=yes <dump>`: which native functions (GC, hashing, Map
// lookups) the instructions go to. --cpu: no valgrind, the server's own CPU time per request
// under the same sequential client instead.
//
// Kinds: those of bench/servers/serve.js, with a variant after a colon (servers/options.js).
import http from 'node:http';
import { createProgram, integer, list, parseArgs } from '../lib/args.js';
import { createRequestFactory, MIXED, WEBHOOK_TYPES } from '../lib/bodies.js';
import { countInstructions, INSTRUCTION_DEFAULTS, inLanes, send } from '../lib/instructions.js';
import { LOAD_CPU, SERVER_CPU, startChild } from '../lib/proc.js';
import { CUSTOMERS } from '../scenarios/throughput.js';

const options = parseArgs(
  createProgram('adapters-callgrind', 'Instructions (or CPU µs) per request of bench servers.')
    .option('--kinds <list>', 'server kinds (servers/serve.js)', list(), [
      'fastify-peer',
      'fastify-plugin',
      'hono-peer',
      'hono-adapter',
    ])
    .option('--types <list>', 'webhook types, or mixed', list([...WEBHOOK_TYPES, MIXED]), [
      'chatbot',
      'incoming',
    ])
    .option('--warmup <n>', 'requests before the measured windows', integer(), INSTRUCTION_DEFAULTS.warmup)
    .option('--requests <n>', 'requests in each measured window', integer(), INSTRUCTION_DEFAULTS.requests)
    .option(
      '--windows <n>',
      'measured windows (the counts are their medians)',
      integer(),
      INSTRUCTION_DEFAULTS.windows,
    )
    .option('--connections <n>', 'keep-alive connections', integer(), 8)
    .option('--lanes <n>', 'servers under callgrind at once (one per CPU)', integer(), 2)
    .option('--cpu', "no valgrind: the server's own CPU time (process.cpuUsage) per request instead")
    .option('--keep', 'keep each callgrind dump and print its path')
    .option(
      '--node-args <list>',
      "extra node flags of the servers under callgrind, e.g. --node-args=--min-semi-space-size=16: V8's young generation held at the size it grows to outside valgrind, where its size otherwise follows allocation per millisecond, which valgrind's slowness and the machine's load set",
      list(),
      [],
    ),
);

const jobs = options.types.flatMap((type) => options.kinds.map((kind) => ({ type, kind })));
const config = (kind) => ({ kind, fullStores: true, scrapeEveryMs: 0 });

/** CPU µs per request of one server under the sequential client, no valgrind. */
async function cpuPerRequest({ kind, type }) {
  const server = await startChild('servers/serve.js', {
    cpu: SERVER_CPU,
    args: [JSON.stringify(config(kind))],
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const nextRequest = createRequestFactory(type, { conversations: CUSTOMERS });
  try {
    await send(agent, server.hello.port, nextRequest, options.warmup, options.connections);
    const before = (await server.call('probe')).cpu;
    await send(agent, server.hello.port, nextRequest, options.requests, options.connections);
    const after = (await server.call('probe')).cpu;
    const user = (after.user - before.user) / options.requests;
    const system = (after.system - before.system) / options.requests;
    console.log(
      `${type}\t${kind}\t${(user + system).toFixed(1)} CPU µs/request (user ${user.toFixed(1)}, system ${system.toFixed(1)})`,
    );
    return { type, kind, perRequest: user + system, user, system };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

const rows = options.cpu
  ? await inLanes(
      jobs.map((job) => () => cpuPerRequest(job)),
      1,
    )
  : await inLanes(
      jobs.map(({ type, kind }) => async (lane) => {
        const counted = await countInstructions({
          config: config(kind),
          type,
          conversations: CUSTOMERS,
          warmup: options.warmup,
          requests: options.requests,
          windows: options.windows,
          connections: options.connections,
          cpu: lane === 0 ? SERVER_CPU : LOAD_CPU,
          keep: options.keep === true,
          nodeArgs: options.nodeArgs,
        });
        console.log(
          `${type}\t${kind}\t${Math.round(counted.perRequest)} instructions/request (main thread ${Math.round(counted.mainPerRequest)}; windows ${counted.windows.map((w) => Math.round(w.mainPerRequest)).join(' ')}; ${JSON.stringify(counted.phases)})${counted.dumps ? `\t${counted.dumps.join(' ')}` : ''}`,
        );
        return { type, kind, ...counted };
      }),
      options.lanes,
    );
console.log(JSON.stringify(rows));
