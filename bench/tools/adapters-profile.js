// Where each server's CPU goes, in µs per request: every kind (bench/servers/serve.js, variants
// allowed) is started on the server CPU with full dedupe stores as in scenario 1, warmed up with
// the mixed load, then a V8 CPU profile is taken over one measured load (node:inspector inside
// the server, so start-up and warm-up are not in it) and its self time is divided by the requests
// answered in that window. Side by side, a receiver and its peer show which groups (a package, a
// folder of dist/, node internals, GC) make the difference. The profiler's sampling costs a little
// CPU itself: compare rows, not with scenario 1's figures.
//
//   node bench/tools/adapters-profile.js [--kinds=fastify-peer,fastify-plugin] [--type=mixed]
//                                        [--seconds=4] [--warmup=3] [--connections=50] [--top=18]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgram, integer, list, Option, parseArgs, positive } from '../lib/args.js';
import { MIXED, pathOf, WEBHOOK_TYPES } from '../lib/bodies.js';
import { createMeasure } from '../lib/measure.js';
import { LOAD_CPU, SERVER_CPU, startChild } from '../lib/proc.js';
import { summarizeProfile } from '../lib/profile.js';
import { table } from '../lib/table.js';
import { CUSTOMERS } from '../scenarios/throughput.js';

const options = parseArgs(
  createProgram('adapters-profile', 'Self CPU µs per request of bench servers, by group and function.')
    .option('--kinds <list>', 'server kinds (servers/serve.js)', list(), ['node-peer', 'node-handler'])
    .option('--seconds <s>', 'seconds of the profiled load', positive, 4)
    .option('--warmup <s>', 'seconds of load before it', positive, 3)
    .addOption(
      new Option('--type <type>', 'a webhook type, or mixed: the five in turn')
        .choices([MIXED, ...WEBHOOK_TYPES])
        .default(MIXED),
    )
    .option('--connections <n>', 'keep-alive connections', integer(), 50)
    .option('--top <n>', 'rows per table', integer(), 18),
);

const measure = createMeasure({ connections: options.connections });
const dir = mkdtempSync(join(tmpdir(), 'adapters-profile-'));
const load = await startChild('workers/load.js', { cpu: LOAD_CPU, name: 'load' });
const columns = {};
try {
  for (const kind of options.kinds) {
    const server = await startChild('servers/serve.js', {
      cpu: SERVER_CPU,
      args: [JSON.stringify({ kind, fullStores: true })],
      name: kind,
    });
    try {
      const run = (seconds) =>
        measure(load, server, {
          path: pathOf(options.type),
          type: options.type,
          seconds,
          conversations: CUSTOMERS,
        });
      await run(options.warmup);
      await server.call('profileStart');
      const measured = await run(options.seconds);
      const file = join(dir, `${kind.replace(':', '-')}.cpuprofile`);
      await server.call('profileStop', { file });
      const summary = summarizeProfile(file);
      const perRequest = (ms) => (ms * 1000) / measured.answered;
      columns[kind] = {
        total: perRequest(summary.busyMs),
        groups: new Map(summary.groups.map((g) => [g.name, perRequest(g.ms)])),
        functions: summary.functions.slice(0, options.top).map((f) => [f.name, perRequest(f.ms).toFixed(2)]),
      };
      console.log(
        `${kind}: ${measured.answered} requests, ${columns[kind].total.toFixed(1)} µs/request busy in the profile, ` +
          `${measured.serverCpuUsPerRequest.toFixed(1)} CPU µs/request (${file})`,
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  await load.stop();
}

const kinds = Object.keys(columns);
const groups = [...new Set(kinds.flatMap((kind) => [...columns[kind].groups.keys()]))]
  .map((name) => [name, Math.max(...kinds.map((kind) => columns[kind].groups.get(name) ?? 0))])
  .sort((a, b) => b[1] - a[1])
  .slice(0, options.top * 2)
  .map(([name]) => name);
console.log('\nself µs per request, by group');
console.log(
  table(
    ['group', ...kinds],
    [
      ['(all)', ...kinds.map((kind) => columns[kind].total.toFixed(2))],
      ...groups.map((name) => [
        name,
        ...kinds.map((kind) => (columns[kind].groups.get(name) ?? 0).toFixed(2)),
      ]),
    ],
  ),
);
for (const kind of kinds) {
  console.log(`\n${kind}: self µs per request, by function`);
  console.log(table(['function (file)', 'µs'], columns[kind].functions));
}
