// The measurement loop shared by scenarios that compare server kinds against each other (1, 8, 9):
// start one server per kind, warm each up on all five types, then measure every type in every round, alternating
// the order of the kinds per type and round so that drift in the machine's load favours no kind.
// Returns one run per (round, kind, type).
import { median } from './table.js';
import { MIXED, pathOf, WEBHOOK_TYPES } from './bodies.js';

/** Answers other than 2xx, plus requests that got no answer (connection errors, timeouts). */
export const non2xx = (run) =>
  Object.entries(run.statusCounts)
    .filter(([status]) => !status.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, run.errors ?? 0);

/**
 * Measures `kinds` (servers of `script`, a path under bench/; servers/serve.js serves them all)
 * with the runner's toolbox `bench`. Options:
 *   rounds         rounds (default bench.rounds, i.e. --adapter-rounds)
 *   types          the loads to measure (default the five WEBHOOK_TYPES; `mixed` is all five in turn)
 *   conversations  spread chatbot and incoming events over this many customers (bench/lib/bodies.js)
 *   config         extra server config per kind: `(kind) => ({ ... })`
 *   warmupSeconds  mixed load before the first measured run of each server (default 1.5, quick 0.5)
 *   nodeArgs       node flags per kind: `(kind) => [...]` (e.g. --cpu-prof)
 */
export async function measureInterleaved(bench, script, kinds, options = {}) {
  const { load, startServer, stop, measure, quick, connections } = bench;
  const rounds = options.rounds ?? bench.rounds;
  const types = options.types ?? WEBHOOK_TYPES;
  const { conversations } = options;
  const warmupSeconds = options.warmupSeconds ?? (quick ? 0.5 : 1.5);
  const servers = {};
  const runs = [];
  try {
    for (const kind of kinds) {
      servers[kind] = await startServer(
        script,
        { kind, ...options.config?.(kind) },
        { nodeArgs: options.nodeArgs?.(kind) ?? [] },
      );
    }
    for (const kind of kinds) {
      await load.call('run', {
        url: `http://127.0.0.1:${servers[kind].hello.port}${pathOf(MIXED)}`,
        type: MIXED,
        connections,
        durationSec: warmupSeconds,
        conversations,
      });
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (const [index, type] of types.entries()) {
        const order = (round + index) % 2 === 1 ? kinds : [...kinds].reverse();
        for (const kind of order) {
          const run = await measure(load, servers[kind], { path: pathOf(type), type, conversations });
          runs.push({ round, kind, ...run });
          process.stdout.write('.');
        }
      }
    }
    process.stdout.write('\n');
  } finally {
    for (const started of Object.values(servers)) await stop(started);
  }
  return runs;
}

/**
 * A cell reader over interleaved runs: `(kind, type)` → the medians over its rounds of req/s,
 * latency, server CPU µs per request and CPU shares, with the failures and duplicates summed.
 */
export function medianCell(runs) {
  return (kind, type) => {
    const mine = runs.filter((run) => run.kind === kind && run.type === type);
    const mid = (pick) => median(mine.map(pick));
    return {
      kind,
      type,
      requestsPerSec: mid((run) => run.okPerSec),
      p50: mid((run) => run.latencyOk.p50),
      p99: mid((run) => run.latencyOk.p99),
      cpuUs: mid((run) => run.serverCpuUsPerRequest),
      serverCpuShare: mid((run) => run.serverCpuShare),
      loadCpuShare: mid((run) => run.loadCpuShare),
      otherCpuCores: mid((run) => run.otherCpuCores),
      non2xx: mine.reduce((sum, run) => sum + non2xx(run), 0),
      duplicates: mine.reduce((sum, run) => sum + (run.serverStats?.duplicates ?? 0), 0),
      rounds: mine.length,
    };
  };
}
