// Scenario 6 of `npm run bench`: the Fastify plugin and the fetch handler against their
// frameworks' ceilings, measured like scenario 1 (same load generator, same bodies, loopback,
// bounded): requests per second per webhook type, the ratio receiver ÷ ceiling per type, and its
// geometric mean over the five types.
//
//   Fastify plugin ÷ a Fastify route doing zod safeParse + 200            target ≥ 1.0×
//   createFetchHandler in Hono on @hono/node-server ÷ a Hono route doing
//   await c.req.json() + 200                                               target ≥ 0.9×
//
// Servers run bench/adapters-server.js. Rounds: --adapter-rounds=N (default 1: the whole bench
// must stay within its 5-minute watchdog; each round alternates the order of the kinds per type).
import { WEBHOOK_TYPES } from './lib/bodies.js';
import { measureInterleaved } from './lib/interleaved.js';
import { fixed, geomean, int, median, ratio, table } from './lib/table.js';

export const ADAPTER_PAIRS = [
  {
    receiver: 'fastify-plugin',
    ceiling: 'fastify-bare',
    limit: 1.0,
    name: 'Fastify plugin vs a Fastify route doing zod safeParse + 200',
  },
  {
    receiver: 'hono-fetch',
    ceiling: 'hono-bare',
    limit: 0.9,
    name: 'createFetchHandler in Hono (@hono/node-server) vs a Hono route doing await c.req.json() + 200',
  },
];

/**
 * Runs the scenario. `bench` is the runner's toolbox: the load generator, a way to start a server
 * script pinned to the server CPU, measure(), target(), log() and the settings.
 */
export async function scenarioAdapters(bench) {
  const { target, log, connections, seconds, rounds } = bench;
  log(
    `\n## 6. Adapters: Fastify plugin and fetch handler vs their frameworks, ${connections} connections, ${rounds} round(s) of ${seconds} s per cell`,
  );
  const kinds = ADAPTER_PAIRS.flatMap((pair) => [pair.ceiling, pair.receiver]);
  const runs = await measureInterleaved(bench, 'adapters-server.js', kinds);

  const cell = (kind, type) => {
    const mine = runs.filter((run) => run.kind === kind && run.type === type);
    return {
      kind,
      type,
      requestsPerSec: median(mine.map((run) => run.okPerSec)),
      p99: median(mine.map((run) => run.latencyOk.p99)),
      cpuUs: median(mine.map((run) => run.serverCpuUsPerRequest)),
      non2xx: mine.reduce(
        (sum, run) =>
          sum +
          Object.entries(run.statusCounts)
            .filter(([status]) => !status.startsWith('2'))
            .reduce((total, [, count]) => total + count, run.errors ?? 0),
        0,
      ),
    };
  };
  const rows = [];
  const summary = {};
  for (const pair of ADAPTER_PAIRS) {
    const throughput = [];
    const cpu = [];
    for (const type of WEBHOOK_TYPES) {
      const mine = cell(pair.receiver, type);
      const ceiling = cell(pair.ceiling, type);
      const throughputRatio = mine.requestsPerSec / ceiling.requestsPerSec;
      throughput.push(throughputRatio);
      cpu.push(ceiling.cpuUs / mine.cpuUs);
      for (const c of [ceiling, mine]) {
        rows.push([
          type,
          c.kind,
          int(c.requestsPerSec),
          fixed(c.p99),
          int(c.cpuUs),
          c.non2xx,
          c === mine ? ratio(throughputRatio) : '',
        ]);
      }
    }
    const overall = geomean(throughput);
    const worst = Math.min(...throughput);
    summary[pair.receiver] = {
      ceiling: pair.ceiling,
      overall,
      worst,
      perType: throughput,
      cpu: geomean(cpu),
    };
    target(
      pair.name,
      overall,
      `≥ ${pair.limit}×`,
      overall >= pair.limit,
      `geometric mean over the five types; worst type ${worst.toFixed(2)}×; by server CPU per request ${geomean(cpu).toFixed(2)}×`,
    );
  }
  log(table(['type', 'server', 'req/s', 'p99 ms', 'CPU µs/req', 'failed', 'req/s ratio'], rows));
  log(
    '(ratio: receiver ÷ its ceiling, per type; "failed": answers other than 2xx, and requests without one)',
  );
  return { summary, runs };
}
