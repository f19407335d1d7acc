// Scenario 1: each adapter against the receiver a user would hand-write on the same framework.
//
// Twelve servers (servers/serve.js), each in its own process on the server CPU, measured in
// interleaved rounds (bench/lib/interleaved.js) with the same load: 50 keep-alive connections,
// the library's fixtures with a unique dedupe identity per request, chatbot and incoming events
// spread over 10 000 customers (ordering keys), and by default the five types in turn on one
// server (`mixed`, like a receiver's real traffic; --per-type measures each type on its own).
//
//   receiver (the library, servers/options.js: validation, in-memory dedupe of 100 000 keys for
//   3 days, in-memory dispatcher with concurrency 16 and maxQueueSize 10 000, delivery tracking,
//   an instant async callback for each type)        against its hand-written peer
//   express-router   createWebhookRouter              express-peer    express.json() + peer
//   fastify-plugin   webhooksPlugin                   fastify-peer    Fastify's parser + peer
//   hono-fetch       createFetchHandler in Hono       hono-peer       await c.req.json() + peer
//   hono-adapter     messaging-webhooks/hono          hono-peer       (the same peer)
//   node-handler     createNodeHandler                node-peer       chunks + JSON.parse + peer
//
// "peer" (servers/peer.js): zod safeParse with the package's schemas, an lru-cache of 100 000
// keys with a 3-day TTL keyed by the library's identity of each type, one p-queue with
// concurrency 16 (not ordered per conversation), the same instant callbacks, 200.
// Every dedupe store, the library's and the peers', starts full (`fullStores`, servers/options.js):
// a receiver's steady state after its first 100 000 events, where each new event evicts one key.
// Measured while filling instead, the library's store (which grows as keys arrive, where
// lru-cache allocates its maximum up front) was still growing during the first rounds.
// Context rows, not targets: express-bare (express.json() + 200), fastify-bare (Fastify's parser
// + zod safeParse + 200), hono-bare (await c.req.json() + 200); node-raw (chunks + JSON.parse +
// 200, node:http's floor) is both the node handler's context row and the peer of its floor target.
//
// Targets: each receiver ≥ 1.0× its peer; the node handler also ≥ 0.75× raw node:http (its floor
// target), and its cost per request ≤ the Fastify plugin's. Judged by instructions per request
// (lib/instructions.js: every receiver and peer under callgrind, the same mixed load), a count
// that repeats from run to run where req/s and CPU µs on a shared or small machine do not; the
// req/s and CPU ratios of the rounds are in each target's note, with their range over the rounds.
// Without valgrind (or with --quick or --no-instructions) the verdicts fall back to req/s, and say
// so. With --profile, the router and the node handler run under --cpu-prof and their profiles are
// summarised.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { MIXED, WEBHOOK_TYPES } from '../lib/bodies.js';
import { benchInstructions, instructionRatio, instructionTable } from '../lib/instructions.js';
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { summarizeProfile } from '../lib/profile.js';
import { fixed, geomean, int, percent, ratio, table } from '../lib/table.js';

/** Distinct customers (chatbot chatParticipantIds, incoming senders) of the load. */
export const CUSTOMERS = 10_000;

/** The servers, pairs adjacent (so the interleaved order keeps each pair's runs close in time). */
const SERVERS = [
  { kind: 'express-bare', role: 'context', what: 'express.json() + 200' },
  { kind: 'express-peer', role: 'peer', what: 'express.json() + zod + lru-cache + p-queue' },
  { kind: 'express-router', role: 'receiver', what: 'createWebhookRouter in Express' },
  { kind: 'fastify-bare', role: 'context', what: 'Fastify parser + zod + 200' },
  { kind: 'fastify-peer', role: 'peer', what: 'Fastify parser + zod + lru-cache + p-queue' },
  { kind: 'fastify-plugin', role: 'receiver', what: 'webhooksPlugin in Fastify' },
  { kind: 'hono-bare', role: 'context', what: 'c.req.json() + 200' },
  { kind: 'hono-peer', role: 'peer', what: 'c.req.json() + zod + lru-cache + p-queue' },
  { kind: 'hono-fetch', role: 'receiver', what: 'createFetchHandler in Hono' },
  { kind: 'hono-adapter', role: 'receiver', what: 'createHonoWebhooks in Hono (app.route), its node path' },
  { kind: 'node-raw', role: 'floor', what: 'node:http + JSON.parse + 200' },
  { kind: 'node-peer', role: 'peer', what: 'node:http + JSON.parse + zod + lru-cache + p-queue' },
  { kind: 'node-handler', role: 'receiver', what: 'createNodeHandler on node:http' },
];

export const PAIRS = [
  {
    receiver: 'express-router',
    peer: 'express-peer',
    context: 'express-bare',
    limit: 1.0,
    name: 'router in Express ÷ hand-written Express peer',
  },
  {
    receiver: 'fastify-plugin',
    peer: 'fastify-peer',
    context: 'fastify-bare',
    limit: 1.0,
    name: 'Fastify plugin ÷ hand-written Fastify peer',
  },
  {
    // Reported: on Node, the Hono adapter is the way to serve from Hono (its node path); the fetch
    // handler there goes through @hono/node-server's Request emulation.
    receiver: 'hono-fetch',
    peer: 'hono-peer',
    context: 'hono-bare',
    limit: undefined,
    name: 'createFetchHandler in Hono ÷ hand-written Hono peer',
  },
  {
    receiver: 'hono-adapter',
    peer: 'hono-peer',
    context: 'hono-bare',
    limit: 1.0,
    name: 'Hono adapter (messaging-webhooks/hono) ÷ hand-written Hono peer',
  },
  {
    receiver: 'node-handler',
    peer: 'node-peer',
    context: 'node-raw',
    limit: 1.0,
    name: 'createNodeHandler ÷ hand-written node:http peer',
  },
  {
    key: 'node-handler-vs-raw',
    receiver: 'node-handler',
    peer: 'node-raw',
    limit: 0.75,
    name: 'createNodeHandler ÷ raw node:http + JSON.parse',
  },
];

/** The pairs with a target (the others are reported). */
const JUDGED = PAIRS.filter((pair) => pair.limit !== undefined);

/** A pair's key in the ratios and the summary: its receiver, unless the receiver has two pairs. */
const keyOf = (pair) => pair.key ?? pair.receiver;

const PROFILED = new Set(['express-router', 'node-handler']);

export async function run(bench) {
  const { target, log, options, connections, seconds, quick } = bench;
  // The rounds' req/s and CPU are context when instruction counts judge: one round, unless --rounds.
  const rounds = bench.instructions && !options.roundsGiven ? 1 : options.rounds;
  const types = options.perType ? WEBHOOK_TYPES : [MIXED];
  log(
    `${connections} connections, ${rounds} round(s) of ${seconds} s per cell, ` +
      `${options.perType ? 'each type on its own' : 'the five types in turn'}, ${CUSTOMERS} customers; ` +
      'receivers with their defaults and an instant callback per type; peers: zod safeParse + ' +
      'lru-cache (100 000 keys, 3-day TTL) + one p-queue (concurrency 16) + the same callbacks',
  );
  const profileDir = `${bench.profileDir}throughput/`;
  if (options.profile) rmSync(profileDir, { recursive: true, force: true });
  const kinds = SERVERS.map((server) => server.kind);
  const runs = await measureInterleaved(bench, 'servers/serve.js', kinds, {
    rounds,
    types,
    conversations: CUSTOMERS,
    config: () => ({ fullStores: true }),
    warmupSeconds: quick ? 0.5 : 1.5,
    nodeArgs: (kind) =>
      options.profile && PROFILED.has(kind) ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}${kind}`] : [],
  });
  const cell = medianCell(runs);
  const cells = types.flatMap((type) => kinds.map((kind) => cell(kind, type)));
  const find = (kind, type) => cells.find((c) => c.kind === kind && c.type === type);

  // Ratios per pair and type: receiver ÷ peer by req/s, and peer CPU ÷ receiver CPU (both "higher
  // is better"); the same against the bare route, as context.
  const ratios = {};
  for (const pair of PAIRS) {
    const r = (ratios[keyOf(pair)] = { throughput: [], cpu: [], contextThroughput: [], contextCpu: [] });
    for (const type of types) {
      const mine = find(pair.receiver, type);
      const peer = find(pair.peer, type);
      r.throughput.push(mine.requestsPerSec / peer.requestsPerSec);
      r.cpu.push(peer.cpuUs / mine.cpuUs);
      if (pair.context) {
        const bare = find(pair.context, type);
        r.contextThroughput.push(mine.requestsPerSec / bare.requestsPerSec);
        r.contextCpu.push(bare.cpuUs / mine.cpuUs);
      }
    }
  }
  const rows = [];
  for (const [index, type] of types.entries()) {
    for (const server of SERVERS) {
      const c = find(server.kind, type);
      const pair = server.role === 'receiver' ? ratios[server.kind] : undefined;
      rows.push([
        type,
        server.kind,
        server.role,
        int(c.requestsPerSec),
        fixed(c.p50),
        fixed(c.p99),
        int(c.cpuUs),
        fixed(c.serverCpuShare),
        fixed(c.loadCpuShare),
        fixed(c.otherCpuCores),
        c.non2xx + c.duplicates,
        pair ? ratio(pair.throughput[index]) : '',
        pair ? ratio(pair.cpu[index]) : '',
      ]);
    }
  }
  log(
    table(
      [
        'load',
        'server',
        'role',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'srv CPU',
        'load CPU',
        'other CPU',
        'failed+dup',
        'req/s ÷ peer',
        'CPU ÷ peer',
      ],
      rows,
    ),
  );
  log(
    '(servers: ' +
      SERVERS.map((s) => `${s.kind} = ${s.what}`).join('; ') +
      '. "CPU ÷ peer": peer CPU µs/req ÷ receiver CPU µs/req, higher is better; "other CPU": cores busy outside the bench; "failed+dup": non-2xx, unanswered and duplicate answers, must be 0)',
  );

  // Req/s ratio per round: receiver ÷ peer measured in the same round (adjacent in time), for
  // the range the note gives.
  const roundRatios = (pair) => {
    const out = [];
    for (const round of [...new Set(runs.map((run) => run.round))]) {
      for (const type of types) {
        const at = (kind) =>
          runs.find((run) => run.round === round && run.type === type && run.kind === kind);
        const mine = at(pair.receiver);
        const peer = at(pair.peer);
        if (mine && peer) out.push(mine.okPerSec / peer.okPerSec);
      }
    }
    return out;
  };

  // The verdicts' counts: instructions per request of every receiver and peer of a target.
  const counted = bench.instructions
    ? await benchInstructions(bench, [...new Set(JUDGED.flatMap((pair) => [pair.receiver, pair.peer]))], {
        conversations: CUSTOMERS,
        log,
      })
    : undefined;
  const judged = counted
    ? 'by instructions per request (main thread, the mean of its windows)'
    : 'by req/s (no instruction counts: a verdict that does not repeat on a busy machine)';
  log(`verdicts ${judged}`);

  const summary = {};
  const over = types.length > 1 ? 'geometric mean over the five types; ' : '';
  for (const pair of PAIRS) {
    const r = ratios[keyOf(pair)];
    const overall = geomean(r.throughput);
    const cpu = geomean(r.cpu);
    const rounds = roundRatios(pair);
    const instructions =
      counted && pair.limit !== undefined
        ? instructionRatio(counted[pair.peer], counted[pair.receiver])
        : undefined;
    summary[keyOf(pair)] = {
      peer: pair.peer,
      instructions,
      throughput: overall,
      throughputRounds: rounds,
      cpu,
      perType: types.length > 1 ? Object.fromEntries(types.map((t, i) => [t, r.throughput[i]])) : undefined,
      context: pair.context
        ? { kind: pair.context, throughput: geomean(r.contextThroughput), cpu: geomean(r.contextCpu) }
        : undefined,
    };
    const worst = types.length > 1 ? `worst type ${Math.min(...r.throughput).toFixed(2)}×; ` : '';
    const reqs = `req/s ${overall.toFixed(2)}× (${over}${worst}rounds ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}×), CPU per request ${cpu.toFixed(2)}×`;
    const measured = instructions ? instructions.ratio : overall;
    target(
      pair.name,
      measured,
      pair.limit === undefined ? 'reported' : `≥ ${pair.limit.toFixed(2)}×`,
      pair.limit === undefined ? undefined : measured >= pair.limit,
      instructions
        ? `instructions ${instructions.low.toFixed(2)}–${instructions.high.toFixed(2)}× over the windows; ${reqs}`
        : reqs,
    );
  }
  // The node handler's cost per request against the Fastify plugin's (lower is better).
  const cpuOf = (kind) => geomean(types.map((type) => find(kind, type).cpuUs));
  const handlerCpu = cpuOf('node-handler');
  const pluginCpu = cpuOf('fastify-plugin');
  summary.nodeHandlerCpuVsFastifyPlugin = handlerCpu / pluginCpu;
  const cpuNote = `CPU ${fixed(handlerCpu, 1)} vs ${fixed(pluginCpu, 1)} µs per request${types.length > 1 ? ' (geometric means over the types)' : ''}`;
  if (counted) {
    const handler = counted['node-handler'];
    const plugin = counted['fastify-plugin'];
    const share = handler.mainPerRequest / plugin.mainPerRequest;
    summary.nodeHandlerInstructionsVsFastifyPlugin = share;
    target(
      'createNodeHandler instructions/req ÷ Fastify plugin instructions/req',
      share,
      '≤ 1.00×',
      share <= 1,
      `${int(handler.mainPerRequest)} vs ${int(plugin.mainPerRequest)} instructions per request; ${cpuNote}`,
    );
  } else {
    target(
      'createNodeHandler CPU µs/req ÷ Fastify plugin CPU µs/req',
      handlerCpu / pluginCpu,
      '≤ 1.00×',
      handlerCpu <= pluginCpu,
      cpuNote,
    );
  }
  if (counted) {
    log(instructionTable('server', Object.entries(counted)));
  }
  log(
    'context, receiver ÷ bare route (req/s; CPU): ' +
      PAIRS.filter((pair) => pair.context)
        .map(
          (pair) =>
            `${pair.receiver} ÷ ${pair.context} ${ratio(summary[keyOf(pair)].context.throughput)}; ${ratio(summary[keyOf(pair)].context.cpu)}`,
        )
        .join(', '),
  );

  if (options.profile) summary.profiles = printProfiles(profileDir, log);
  return { types, customers: CUSTOMERS, cells, summary, instructions: counted, runs };
}

/** Summarises the V8 CPU profiles of the profiled servers (written when they exited). */
function printProfiles(profileDir, log) {
  const profiles = {};
  if (!existsSync(profileDir)) return profiles;
  for (const kind of readdirSync(profileDir)) {
    const files = readdirSync(`${profileDir}${kind}`).filter((file) => file.endsWith('.cpuprofile'));
    if (files.length === 0) continue;
    const summary = summarizeProfile(`${profileDir}${kind}/${files[0]}`);
    profiles[kind] = summary;
    log(`\nWhere ${kind} spends its CPU (self time, whole scenario)`);
    log(
      table(
        ['group', 'share'],
        summary.groups.slice(0, 14).map((g) => [g.name, percent(g.share)]),
      ),
    );
    log(
      table(
        ['function (file)', 'share'],
        summary.functions.slice(0, 20).map((f) => [f.name, percent(f.share)]),
      ),
    );
  }
  return profiles;
}
