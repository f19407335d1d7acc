// Redis commands per acknowledged event of the Redis-mode receivers, over a fixed load against a
// private redis-server (emptied and its statistics reset before each receiver): the library's node
// handler with the claim in BullMQ's add (one step), the same handler made to claim, add and
// confirm in turn (`three-step`: the Redis mode as it was before the claim moved into the add),
// and the hand-written peer (SET NX, then queue.add). The servers are those of the redis-peer
// scenario (bench/scenarios/redis-peer-server.js); no worker runs.
//
//   node bench/tools/redis-commands.js [--events=2000] [--connections=50] [--duplicates=0.1]
//
// Printed per acknowledged event: the commands the receiver sent (MONITOR, commands run inside a
// script left out: what its connection carries, one reply each), every command Redis ran (INFO
// commandstats deltas: inside scripts included), with the top commands of each, and the CPU time
// of the redis-server process (INFO cpu deltas, measured in a pass without MONITOR, which costs
// Redis time of its own).
// `--duplicates` re-sends that share of the events once more after the load (redeliveries).
import http from 'node:http';
import { Redis } from 'ioredis';
import { createProgram, integer, parseArgs, positive } from '../lib/args.js';
import { createBodyFactory } from '../lib/bodies.js';
import { startChild } from '../lib/proc.js';
import { startRedis } from '../lib/redis.js';
import { table } from '../lib/table.js';

const options = parseArgs(
  createProgram('redis-commands', 'Redis commands per acknowledged event of the Redis-mode receivers.')
    .option('--events <n>', 'distinct chatbot events sent to each receiver', integer(), 2000)
    .option('--connections <n>', 'keep-alive connections', integer(), 50)
    .option('--duplicates <share>', 'share of the events sent once more afterwards', positive, 0),
);
const RECEIVERS = [
  { label: 'library, claim in the add (one step)', kind: 'library' },
  { label: 'library, claim + add + confirm (three steps)', kind: 'library', mode: 'three-step' },
  { label: 'hand-written peer (SET NX + add)', kind: 'peer' },
];

/** POSTs each body once over `connections` keep-alive connections; answers per status. */
async function send(port, bodies, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const statuses = new Map();
  let next = 0;
  const one = (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          path: '/webhooks/chatbot',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < bodies.length) await one(bodies[next++]);
    }),
  );
  agent.destroy();
  return statuses;
}

/** `INFO commandstats` as { command: calls }. */
async function commandstats(admin) {
  const calls = {};
  for (const match of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls[match[1]] = Number(match[2]);
  }
  return calls;
}

/** The redis-server process's CPU time so far, in µs (`INFO cpu`). */
async function redisCpuUs(admin) {
  const info = await admin.info('cpu');
  const seconds = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

const top = (counts, per) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 6)
    .map(([name, n]) => `${name} ${(n / per).toFixed(2)}`)
    .join(', ');

const redis = await startRedis();
if (redis.skipped) {
  console.log(`skipped: ${redis.skipped}`);
  process.exit(0);
}
const admin = new Redis({ path: redis.socket });
const rows = [];
try {
  for (const receiver of RECEIVERS) {
    await admin.flushall();
    const server = await startChild('scenarios/redis-peer-server.js', {
      args: [JSON.stringify({ kind: receiver.kind, mode: receiver.mode, redisPath: redis.socket })],
      name: receiver.label,
    });
    try {
      const nextBody = createBodyFactory('chatbot', { conversations: 1000 });
      // Warm up: scripts loaded, connections open; then the counted window.
      await send(server.hello.port, Array.from({ length: 200 }, nextBody), options.connections);
      // A pass without MONITOR for the time Redis spends per event.
      const timed = Array.from({ length: options.events }, nextBody);
      const cpuBefore = await redisCpuUs(admin);
      const timedStatuses = await send(server.hello.port, timed, options.connections);
      const redisUs = ((await redisCpuUs(admin)) - cpuBefore) / (timedStatuses.get(200) ?? 1);
      await admin.flushall();
      const bodies = Array.from({ length: options.events }, nextBody);
      const repeats = bodies.slice(0, Math.round(bodies.length * options.duplicates));
      await admin.config('RESETSTAT');
      const monitor = await admin.monitor();
      const sent = {};
      monitor.on('monitor', (_time, args, source) => {
        if (source === 'lua' || typeof args[0] !== 'string') return;
        const name = args[0].toLowerCase();
        sent[name] = (sent[name] ?? 0) + 1;
      });
      const statuses = await send(server.hello.port, bodies, options.connections);
      for (const [status, n] of await send(server.hello.port, repeats, options.connections))
        statuses.set(status, (statuses.get(status) ?? 0) + n);
      const ran = await commandstats(admin);
      // MONITOR lines trail the replies: a moment for the last ones, then leave out our own.
      await new Promise((resolve) => setTimeout(resolve, 300));
      monitor.disconnect();
      for (const own of ['config|resetstat', 'info', 'monitor']) delete ran[own];
      delete sent.info;
      const acked = statuses.get(200) ?? 0;
      const sentTotal = Object.values(sent).reduce((sum, n) => sum + n, 0);
      const ranTotal = Object.values(ran).reduce((sum, n) => sum + n, 0);
      rows.push({
        receiver: receiver.label,
        acked,
        failed: [...statuses].filter(([status]) => status !== 200).reduce((sum, [, n]) => sum + n, 0),
        sentPerEvent: sentTotal / acked,
        redisUs,
        ranPerEvent: ranTotal / acked,
        sent: top(sent, acked),
        ran: top(ran, acked),
      });
    } finally {
      await server.stop();
    }
  }
} finally {
  admin.disconnect();
  await redis.stop();
}
console.log(
  `${options.events} distinct chatbot events${options.duplicates > 0 ? ` then ${Math.round(options.events * options.duplicates)} redeliveries` : ''}, ${options.connections} connections, per acknowledged event:`,
);
console.log(
  table(
    [
      'receiver',
      'acked',
      'failed',
      'commands sent',
      'commands Redis ran',
      'Redis CPU µs',
      'sent',
      'ran (inside scripts too)',
    ],
    rows.map((row) => [
      row.receiver,
      row.acked,
      row.failed,
      row.sentPerEvent.toFixed(2),
      row.ranPerEvent.toFixed(2),
      row.redisUs.toFixed(1),
      row.sent,
      row.ran,
    ]),
  ),
);
console.log(JSON.stringify(rows));
