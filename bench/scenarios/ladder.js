// Scenario 11, opt-in (`--only=ladder` or `--ladder`; several minutes): the cost ladders, run on
// chatbot events only and at one fixed offered rate (--ladder-rate, default 500 req/s), so that
// every server handles the same requests per second and CPU µs per request compare like for like
// (at full speed a faster server batches more requests per event-loop wake-up, which lowers its
// CPU per request by itself).
//
//   node:http   raw → the library's readBody() + send() alone → the pipeline without callbacks
//               (parse, validate, ack) → with an instant callback but no dedupe → the full handler
//   Express     its floor (routing, body handled as raw node:http does) → express.json() + 200 →
//               the router
//
// Every server is first warmed for 10 s (a server still running unoptimized code would show a CPU
// cost that is not its own). Reported, no target.
import { fixed, int, median, table } from '../lib/table.js';

const NODE_RUNGS = [
  { name: 'node-raw', config: { kind: 'node-raw' }, what: 'collect chunks, JSON.parse, writeHead + end' },
  {
    name: 'node-readbody',
    config: { kind: 'node-readbody' },
    what: "the library's readBody() and send() instead",
  },
  {
    name: 'handler:no-callbacks',
    config: { kind: 'node-handler', variant: 'no-callbacks' },
    what: 'pipeline: head, parse, validate, ack (no callback registered)',
  },
  {
    name: 'handler:no-dedupe',
    config: { kind: 'node-handler', variant: 'no-dedupe' },
    what: 'enqueue + run an instant callback',
  },
  { name: 'node-handler', config: { kind: 'node-handler' }, what: 'dedupe (the full receiver)' },
];
const EXPRESS_RUNGS = [
  {
    name: 'express-floor',
    config: { kind: 'express-floor' },
    what: 'Express routing; body read, JSON.parse and answer as raw node:http',
  },
  { name: 'express-bare', config: { kind: 'express-bare' }, what: 'express.json() + res.json()' },
  {
    name: 'express-router',
    config: { kind: 'express-router' },
    what: 'the router mounted with app.use (its own body reading + pipeline)',
  },
];

export async function run(bench) {
  const { load, startServer, stop, measure, log, quick, connections, options } = bench;
  const rate = options.ladderRate;
  const seconds = quick ? 1 : 2;
  const warmupSeconds = quick ? 1 : 10;
  log(
    `chatbot at ${rate} req/s offered, ${options.rounds} round(s) of ${seconds} s, ${warmupSeconds} s warm-up each`,
  );
  const rungs = [...NODE_RUNGS, ...EXPRESS_RUNGS];
  const servers = {};
  const runs = [];
  try {
    for (const rung of rungs) servers[rung.name] = await startServer('servers/serve.js', rung.config);
    for (const rung of rungs)
      await load.call('run', {
        url: `http://127.0.0.1:${servers[rung.name].hello.port}/webhooks/chatbot`,
        type: 'chatbot',
        connections,
        durationSec: warmupSeconds,
      });
    for (let round = 1; round <= options.rounds; round += 1) {
      const order = round % 2 === 1 ? rungs : [...rungs].reverse();
      for (const rung of order) {
        const run = await measure(load, servers[rung.name], {
          path: '/webhooks/chatbot',
          type: 'chatbot',
          rate,
          seconds,
        });
        runs.push({ round, kind: rung.name, ...run });
        process.stdout.write(':');
      }
    }
    process.stdout.write('\n');
  } finally {
    for (const started of Object.values(servers)) await stop(started);
  }
  const cell = (rung) => {
    const mine = runs.filter((run) => run.kind === rung.name);
    return {
      kind: rung.name,
      what: rung.what,
      requestsPerSec: median(mine.map((run) => run.okPerSec)),
      p99: median(mine.map((run) => run.latencyOk.p99)),
      cpuUs: median(mine.map((run) => run.serverCpuUsPerRequest)),
    };
  };
  const nodeCells = NODE_RUNGS.map(cell);
  const expressCells = EXPRESS_RUNGS.map(cell);
  log('\nraw node:http → createNodeHandler (server CPU µs per request):');
  log(
    table(
      ['server', 'what it adds', 'req/s', 'p99 ms', 'CPU µs/req', '+ CPU µs'],
      nodeCells.map((c, i) => [
        c.kind,
        c.what,
        int(c.requestsPerSec),
        fixed(c.p99),
        int(c.cpuUs),
        i === 0 ? '' : int(c.cpuUs - nodeCells[i - 1].cpuUs),
      ]),
    ),
  );
  log('\nExpress: its own floor against the two ways of parsing (server CPU µs per request):');
  log(
    table(
      ['server', 'what it does', 'req/s', 'p99 ms', 'CPU µs/req', 'over the floor'],
      expressCells.map((c, i) => [
        c.kind,
        c.what,
        int(c.requestsPerSec),
        fixed(c.p99),
        int(c.cpuUs),
        i === 0 ? '' : int(c.cpuUs - expressCells[0].cpuUs),
      ]),
    ),
  );
  return { rate, cells: [...nodeCells, ...expressCells], runs };
}
