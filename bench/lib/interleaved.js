// The measurement loop shared by scenarios that compare server kinds against each other (6, 8):
// start one server per kind, warm each up on chatbot events, then measure every type in every
// round, alternating the order of the kinds per type and round so that drift in the machine's
// load favours no kind. Returns one run per (round, kind, type).
import { WEBHOOK_PATHS } from '../../dist/schemas/index.js';
import { WEBHOOK_TYPES } from './bodies.js';
import { median } from './table.js';

export async function measureInterleaved(bench, script, kinds) {
  const { load, startServer, stop, measure, quick, connections, rounds } = bench;
  const servers = {};
  for (const kind of kinds) servers[kind] = await startServer(script, { kind });
  const runs = [];
  try {
    for (const kind of kinds) {
      await load.call('run', {
        url: `http://127.0.0.1:${servers[kind].hello.port}/webhooks/chatbot`,
        type: 'chatbot',
        connections,
        durationSec: quick ? 0.5 : 1.5,
      });
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (const [index, type] of WEBHOOK_TYPES.entries()) {
        const order = (round + index) % 2 === 1 ? kinds : [...kinds].reverse();
        for (const kind of order) {
          const run = await measure(load, servers[kind], { path: `/webhooks/${WEBHOOK_PATHS[type]}`, type });
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
 * p99 latency and server CPU µs per request.
 */
export function medianCell(runs) {
  return (kind, type) => {
    const mine = runs.filter((run) => run.kind === kind && run.type === type);
    return {
      requestsPerSec: median(mine.map((run) => run.okPerSec)),
      p99: median(mine.map((run) => run.latencyOk.p99)),
      cpuUs: median(mine.map((run) => run.serverCpuUsPerRequest)),
    };
  };
}
