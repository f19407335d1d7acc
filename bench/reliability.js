// Reliability run (README "Reliability"): fuzzed requests over real sockets, hostile inputs,
// slow clients under normal load, and 1 MB dedupe identities in a 128 MB heap. All traffic goes
// to 127.0.0.1 on ports chosen by the OS; every loop is bounded in count and in time, and a
// watchdog stops the run past 4 minutes. Prints a table per part and writes everything to
// bench/results/reliability-<timestamp>.json (git-ignored).
//
//   npm run reliability                      # build, then node bench/reliability.js
//   node bench/reliability.js --only=1,2     # some parts only
//   node bench/reliability.js --fuzz=4000    # fewer fuzzed requests (a smoke test)
//
// Parts 4 and the slow-client server of part 3 run in child processes of this same file
// (`--child=identities`, `--child=slow-server`).
import autocannon from 'autocannon';
import express from 'express';
import fc from 'fast-check';
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createNodeHandler, createWebhookRouter } from '../dist/index.js';
import {
  allFixtures,
  buildChatbotEvent,
  buildIncoming,
  buildSession,
  buildStatus,
} from '../dist/testing/index.js';
import { createBodyFactory } from './lib/bodies.js';
import { int, fixed, table } from './lib/table.js';

const SELF = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const arg = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SEED = Number(arg('seed') ?? 162026);
const FUZZ_TOTAL = Number(arg('fuzz') ?? 24_000);
const ONLY = arg('only')?.split(',').map(Number);
const wants = (part) => !ONLY || ONLY.includes(part);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

const ENDPOINTS = ['/', '/incoming', '/status', '/session', '/events', '/chatbot'];
const ENDPOINT_OF = {
  incoming: '/incoming',
  status: '/status',
  session: '/session',
  event: '/events',
  chatbot: '/chatbot',
};
const IDENTITY = {
  chatbot: ['eventId', 'string'],
  incoming: ['gstId', 'string'],
  status: ['gstId', 'string'],
  session: ['timestamp', 'number'],
  event: ['timestamp', 'number'],
};
const DOCUMENTED_503 = new Set(['queue_full', 'shutting_down', 'store_unavailable']);

/** Own `__proto__` keys and `constructor.prototype` objects anywhere in a value (iterative). */
function prototypeKeysIn(value) {
  let found = 0;
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) found += 1;
    if (
      Object.hasOwn(node, 'constructor') &&
      typeof node.constructor === 'object' &&
      node.constructor !== null &&
      Object.hasOwn(node.constructor, 'prototype')
    )
      found += 1;
    for (const key of Object.keys(node)) stack.push(node[key]);
  }
  return found;
}

/** Callbacks that record each run by the request's unique marker (`x-request-id`). */
function recorder() {
  const runs = new Map();
  const seen = { prototypeKeys: 0 };
  const record = (payload, ctx) => {
    runs.set(ctx.requestId, (runs.get(ctx.requestId) ?? 0) + 1);
    seen.prototypeKeys += prototypeKeysIn(payload);
  };
  const invalid = { count: 0 };
  return {
    runs,
    invalid,
    seen,
    options: {
      onIncoming: record,
      onStatus: record,
      onSession: record,
      onEvent: record,
      onChatbot: record,
      onInvalid: () => {
        invalid.count += 1;
      },
    },
  };
}

function listen(listener) {
  const server = createServer(listener);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port }));
  });
}

async function stop(server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/* ------------------------------------------------------------------------------------------ */
/* Part 1: fuzz                                                                                */
/* ------------------------------------------------------------------------------------------ */

const FIXTURES = allFixtures();

/** A fixture with a fresh identity (so it is not a duplicate of the corpus), then mutated. */
function fuzzArbitrary() {
  let counter = 0;
  const fresh = fc.constantFrom(...FIXTURES).map((f) => {
    counter += 1;
    const payload = structuredClone(f.payload);
    const [field, kind] = IDENTITY[f.type];
    payload[field] = kind === 'string' ? `fuzz-${SEED}-${counter}` : 1_700_000_000_000 + counter;
    return { type: f.type, payload };
  });
  const own = (f) => ENDPOINT_OF[f.type];
  const mutated = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fresh, fc.constantFrom(...ENDPOINTS, 'own', 'own', 'own')).map(([f, p]) => ({
        path: p === 'own' ? own(f) : p,
        body: JSON.stringify(f.payload),
        kind: 'fixture',
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fresh, fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([f, at, value]) => {
        const keys = Object.keys(f.payload);
        f.payload[keys[at % keys.length]] = value;
        return { path: own(f), body: JSON.stringify(f.payload), kind: 'field set' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat()).map(([f, at]) => {
        const keys = Object.keys(f.payload);
        delete f.payload[keys[at % keys.length]];
        return { path: own(f), body: JSON.stringify(f.payload), kind: 'field removed' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fresh, fc.constantFrom('__proto__', 'constructor'), fc.integer({ min: 0, max: 40 }))
        .map(([f, key, depth]) => ({
          path: own(f),
          body: JSON.stringify(f.payload).replace(
            /}$/,
            `,"extra":${'{"n":'.repeat(depth)}{"${key}":{"prototype":{"polluted":true}}}${'}'.repeat(depth)}}`,
          ),
          kind: 'prototype key',
        })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat(), fc.string({ maxLength: 3 })).map(([f, at, insert]) => {
        const text = JSON.stringify(f.payload);
        const i = at % (text.length + 1);
        return { path: own(f), body: text.slice(0, i) + insert + text.slice(i), kind: 'text edited' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fresh, fc.nat()).map(([f, at]) => {
        const text = JSON.stringify(f.payload);
        return { path: own(f), body: text.slice(0, at % text.length), kind: 'truncated' };
      }),
    },
  );
  const randomJson = fc
    .tuple(fc.constantFrom(...ENDPOINTS), fc.json({ maxDepth: 4 }))
    .map(([path, body]) => ({ path, body, kind: 'random JSON' }));
  return fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: randomJson });
}

async function fuzzAdapter(name, total, build) {
  const rec = recorder();
  const { receiver, listener } = build(rec.options);
  const { server, port } = await listen(listener);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 16, pipelining: 1 });
  // Fixed seed, per adapter: the first sample's seed is SEED, the Express one SEED + 1.
  const seed = SEED + (name === 'Express router' ? 1 : 0);
  const unique = Math.round(total * 0.9);
  const posts = fc.sample(fuzzArbitrary(), { seed, numRuns: unique });
  // About 10% are redeliveries: after every 9 posts, one earlier post again (same endpoint, same
  // body, a new request).
  const picks = fc.sample(fc.nat(), { seed: seed + 100, numRuns: total - unique });
  const plan = [];
  let pick = 0;
  for (let i = 0; i < posts.length; i += 1) {
    plan.push({ ...posts[i], redelivery: false });
    if (i % 9 === 8 && pick < picks.length) {
      plan.push({ ...posts[picks[pick] % (i + 1)], redelivery: true });
      pick += 1;
    }
  }
  const byStatus = new Map();
  const answers = new Array(plan.length);
  let bad5xx = 0;
  let nonJson = 0;
  const deadline = Date.now() + 60_000;
  let next = 0;
  async function worker() {
    while (next < plan.length && Date.now() < deadline) {
      const i = next;
      next += 1;
      const p = plan[i];
      const id = `fuzz-${name === 'Express router' ? 'x' : 'n'}-${i}`;
      const res = await pool.request({
        path: `/hooks${p.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: p.body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        nonJson += 1;
      }
      const code = res.statusCode === 200 ? (body?.duplicate ? 'duplicate' : 'ok') : body?.error?.code;
      const keyName = `${res.statusCode} ${code}`;
      byStatus.set(keyName, (byStatus.get(keyName) ?? 0) + 1);
      if (res.statusCode >= 500 && !(res.statusCode === 503 && DOCUMENTED_503.has(code))) bad5xx += 1;
      answers[i] = { id, status: res.statusCode, duplicate: body?.duplicate === true };
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  const seconds = (performance.now() - started) / 1000;
  await receiver.idle();
  const sent = answers.filter(Boolean);
  const fresh200 = sent.filter((a) => a.status === 200 && !a.duplicate);
  const dup200 = sent.filter((a) => a.status === 200 && a.duplicate);
  const ranOnce = fresh200.filter((a) => rec.runs.get(a.id) === 1).length;
  const dupRan = dup200.filter((a) => rec.runs.has(a.id)).length;
  const nonOkRan = sent.filter((a) => a.status !== 200 && rec.runs.has(a.id)).length;
  const total400 = sent.filter((a) => a.status === 400).length;
  const s = receiver.stats().total;
  await receiver.close(1000);
  await pool.close();
  await stop(server);
  return {
    adapter: name,
    seed,
    requests: sent.length,
    planned: plan.length,
    redeliveries: plan.filter((p) => p.redelivery).length,
    seconds,
    byStatus: Object.fromEntries([...byStatus].sort()),
    undocumented5xx: bad5xx,
    nonJsonBodies: nonJson,
    ok200: fresh200.length,
    duplicates: dup200.length,
    fresh200RanExactlyOnce: ranOnce,
    duplicatesThatRan: dupRan,
    non200ThatRan: nonOkRan,
    callbacksRun: [...rec.runs.values()].reduce((a, b) => a + b, 0),
    answered400: total400,
    onInvalidCalls: rec.invalid.count,
    stats: {
      received: s.received,
      acked: s.acked,
      invalid: s.invalid,
      rejected: s.rejected,
      duplicates: s.duplicates,
    },
    identityHolds: s.received === s.acked + s.invalid + s.rejected,
  };
}

const ADAPTERS = {
  node: (options) => {
    const receiver = createNodeHandler({ ...options, basePath: '/hooks' });
    return { receiver, listener: receiver };
  },
  express: (options, { caseSensitive = false, jsonFirst = false } = {}) => {
    const receiver = createWebhookRouter(options);
    const app = express();
    if (caseSensitive) app.set('case sensitive routing', true);
    if (jsonFirst) app.use(express.json({ limit: '2mb' }));
    app.use('/hooks', receiver);
    return { receiver, listener: app };
  },
};

async function partFuzz() {
  const half = Math.round(FUZZ_TOTAL / 2);
  const results = [
    await fuzzAdapter('node:http handler', half, ADAPTERS.node),
    await fuzzAdapter('Express router', FUZZ_TOTAL - half, ADAPTERS.express),
  ];
  console.log(`\nPart 1: fuzz (fast-check, seeds ${SEED} and ${SEED + 1}, 16 keep-alive connections each)`);
  console.log(
    table(
      [
        'adapter',
        'requests',
        'redelivered',
        '200',
        'duplicate',
        '200 ran once',
        '4xx',
        '503',
        'other 5xx',
        'received=acked+invalid+rejected',
      ],
      results.map((r) => {
        const count = (prefix) =>
          Object.entries(r.byStatus)
            .filter(([k]) => k.startsWith(prefix))
            .reduce((a, [, v]) => a + v, 0);
        return [
          r.adapter,
          r.requests,
          r.redeliveries,
          r.ok200,
          r.duplicates,
          `${r.fresh200RanExactlyOnce}/${r.ok200}`,
          count('4'),
          count('503'),
          r.undocumented5xx,
          `${r.stats.received}=${r.stats.acked}+${r.stats.invalid}+${r.stats.rejected} ${r.identityHolds ? 'holds' : 'FAILS'}`,
        ];
      }),
    ),
  );
  const codes = new Set(results.flatMap((r) => Object.keys(r.byStatus)));
  console.log(
    table(
      ['answer', ...results.map((r) => r.adapter)],
      [...codes].sort().map((c) => [c, ...results.map((r) => r.byStatus[c] ?? 0)]),
    ),
  );
  for (const r of results) {
    console.log(
      `${r.adapter}: ${r.requests} in ${fixed(r.seconds, 1)} s; duplicates that ran ${r.duplicatesThatRan}, non-200 that ran ${r.non200ThatRan}, ` +
        `400s ${r.answered400} / onInvalid ${r.onInvalidCalls}, non-JSON bodies ${r.nonJsonBodies}`,
    );
  }
  return results;
}

/* ------------------------------------------------------------------------------------------ */
/* Part 2: hostile inputs                                                                      */
/* ------------------------------------------------------------------------------------------ */

/** Sends raw bytes on a fresh socket; resolves with status, code and ms, or 'no answer'. */
function rawRequest(
  port,
  {
    path = '/hooks/chatbot',
    headers = {},
    body = Buffer.alloc(0),
    contentLength,
    trickleMs,
    timeoutMs = 15_000,
  },
) {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let closed = false;
    let timer;
    const finish = (extra) => {
      clearTimeout(timer);
      clearInterval(trickle);
      socket.destroy();
      const match = /^HTTP\/1\.1 (\d+)/.exec(response);
      const code = /"code":"([^"]+)"/.exec(response)?.[1];
      const duplicate = /"duplicate":true/.test(response);
      resolve({
        status: match ? Number(match[1]) : 'no answer',
        code:
          code ??
          (match
            ? Number(match[1]) === 200
              ? duplicate
                ? 'duplicate'
                : 'ok'
              : '(not the JSON error body)'
            : undefined),
        ms: performance.now() - started,
        closedByServer: closed,
        connectionClose: /\r\nconnection: close/i.test(response),
        ...extra,
      });
    };
    timer = setTimeout(() => finish({ timedOut: true }), timeoutMs);
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      `Content-Length: ${contentLength ?? body.length}\r\nConnection: close\r\n\r\n`;
    let trickle;
    socket.on('connect', () => {
      socket.write(head);
      if (trickleMs) {
        let sentBytes = 0;
        trickle = setInterval(() => {
          if (sentBytes < body.length && !socket.destroyed)
            socket.write(body.subarray(sentBytes, (sentBytes += 1)));
        }, trickleMs);
      } else {
        socket.write(body);
      }
    });
    socket.on('data', (chunk) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
}

async function hostileOne(row, { adapter = 'node', adapterOptions, options = {}, requests }) {
  const rec = recorder();
  const { receiver, listener } = ADAPTERS[adapter](
    { ...rec.options, bodyTimeoutMs: 1000, ...options },
    adapterOptions,
  );
  const { server, port } = await listen(listener);
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const answers = [];
  let blockMs = 0;
  let busyMs = 0;
  for (const request of requests) {
    histogram.reset();
    histogram.enable();
    const before = performance.eventLoopUtilization();
    answers.push(await rawRequest(port, request));
    // Let the delay monitor's timer fire once more, so a block at the end of the request is sampled.
    await sleep(5);
    busyMs = Math.max(busyMs, performance.eventLoopUtilization(before).active);
    histogram.disable();
    blockMs = Math.max(blockMs, histogram.max / 1e6);
  }
  await receiver.idle();
  const polluted = Object.prototype.polluted !== undefined || {}.polluted !== undefined;
  const runs = [...rec.runs.values()].reduce((a, b) => a + b, 0);
  const s = receiver.stats().total;
  await receiver.close(1000);
  await stop(server);
  return {
    row,
    adapter,
    answers: answers.map((a) => `${a.status}${a.code ? ` ${a.code}` : ''}`).join(', '),
    ms: answers.map((a) => Math.round(a.ms)),
    closedByServer: answers.map((a) => a.closedByServer),
    callbacksRun: runs,
    prototypeKeysReachingCallbacks: rec.seen.prototypeKeys,
    blockMs,
    busyMs,
    polluted,
    stats: { received: s.received, acked: s.acked, invalid: s.invalid, rejected: s.rejected },
  };
}

const json = (value) => Buffer.from(JSON.stringify(value));
const withExtra = (payload, extraJson) =>
  Buffer.from(JSON.stringify(payload).replace(/}$/, `,"extra":${extraJson}}`));
const nested = (depth, inner) => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

async function hostileRows() {
  const rows = [];
  const megabyte = 'x'.repeat(MiB - 2048);
  const chatbot = buildChatbotEvent({ eventId: 'hostile-1' });
  rows.push(
    await hostileOne('1 MB eventId (chatbot), sent twice', {
      requests: [1, 2].map(() => ({ body: json({ ...chatbot, eventId: megabyte }) })),
    }),
  );
  rows.push(
    await hostileOne('1 MB gstId (status), sent twice', {
      requests: [1, 2].map(() => ({ path: '/hooks/status', body: json(buildStatus({ gstId: megabyte })) })),
    }),
  );
  rows.push(
    await hostileOne('two session payloads a ":"-joined key would merge', {
      requests: [
        {
          path: '/hooks/session',
          body: json(
            buildSession({
              messagingNumber: '+27215550100',
              statusType: 'connecting:Connected',
              timestamp: 1,
            }),
          ),
        },
        {
          path: '/hooks/session',
          body: json(
            buildSession({
              messagingNumber: '+27215550100:connecting',
              statusType: 'Connected',
              timestamp: 1,
            }),
          ),
        },
      ],
    }),
  );
  const removed = buildIncoming({ messageContentType: 'REACTION', text: '', gstId: 'reacted-to-1' });
  rows.push(
    await hostileOne('removed reaction (text "") redelivered', {
      requests: [1, 2].map(() => ({ path: '/hooks/incoming', body: json(removed) })),
    }),
  );
  const proto = nested(5000, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  const protoBody = withExtra(buildChatbotEvent({ eventId: 'proto-1' }), proto);
  rows.push(await hostileOne('__proto__ at depth 5,000, raw', { requests: [{ body: protoBody }] }));
  const unbounded = { maxJsonDepth: Infinity, maxJsonKeys: Infinity };
  rows.push(
    await hostileOne('__proto__ at depth 5,000, raw, bounds lifted', {
      options: unbounded,
      requests: [{ body: withExtra(buildChatbotEvent({ eventId: 'proto-2' }), proto) }],
    }),
  );
  rows.push(
    await hostileOne('__proto__ at depth 5,000, express.json() first', {
      adapter: 'express',
      adapterOptions: { jsonFirst: true },
      requests: [{ body: withExtra(buildChatbotEvent({ eventId: 'proto-3' }), proto) }],
    }),
  );
  rows.push(
    await hostileOne('__proto__ at depth 5,000, express.json() first, bounds lifted', {
      adapter: 'express',
      adapterOptions: { jsonFirst: true },
      options: unbounded,
      requests: [{ body: withExtra(buildChatbotEvent({ eventId: 'proto-4' }), proto) }],
    }),
  );
  rows.push(
    await hostileOne('deep JSON (3,000) with \\u escapes, then the same without', {
      requests: [
        { body: withExtra(buildChatbotEvent({ eventId: 'deep-1' }), nested(3000, '"\\u0041\\u00e9"')) },
        { body: withExtra(buildChatbotEvent({ eventId: 'deep-2' }), nested(3000, '"A"')) },
      ],
    }),
  );
  const wide = `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
  rows.push(
    await hostileOne(`100k-key object (${fixed(Buffer.byteLength(wide) / MiB)} MiB)`, {
      requests: [{ body: withExtra(buildChatbotEvent({ eventId: 'wide-1' }), wide) }],
    }),
  );
  rows.push(
    await hostileOne('100k-key object, key bound lifted (maxJsonKeys: Infinity)', {
      options: { maxJsonKeys: Infinity },
      requests: [{ body: withExtra(buildChatbotEvent({ eventId: 'wide-2' }), wide) }],
    }),
  );
  const valid = json(buildChatbotEvent({ eventId: 'utf8-1', text: 'héllo' }));
  const invalidUtf8 = Buffer.from(valid);
  invalidUtf8[invalidUtf8.indexOf(0xc3)] = 0xff;
  rows.push(await hostileOne('invalid UTF-8 (0xFF in a string)', { requests: [{ body: invalidUtf8 }] }));
  rows.push(
    await hostileOne('UTF-8 BOM before the JSON', {
      requests: [
        {
          body: Buffer.concat([
            Buffer.from([0xef, 0xbb, 0xbf]),
            json(buildChatbotEvent({ eventId: 'bom-1' })),
          ]),
        },
      ],
    }),
  );
  rows.push(
    await hostileOne('wrong header token + correct query token', {
      options: { token: 'right-token' },
      requests: [
        {
          path: '/hooks/chatbot?token=right-token',
          headers: { 'x-webhook-token': 'wrong' },
          body: json(buildChatbotEvent({ eventId: 'token-1' })),
        },
      ],
    }),
  );
  for (const [adapter, adapterOptions, label] of [
    ['node', undefined, 'node handler'],
    ['express', undefined, 'Express, default'],
    ['express', { caseSensitive: true }, "Express, 'case sensitive routing'"],
  ]) {
    rows.push(
      await hostileOne(`/hooks//chatbot, /HOOKS/chatbot (${label})`, {
        adapter,
        adapterOptions,
        requests: [
          { path: '/hooks//chatbot', body: json(buildChatbotEvent({ eventId: `path-a-${label}` })) },
          { path: '/HOOKS/chatbot', body: json(buildChatbotEvent({ eventId: `path-b-${label}` })) },
        ],
      }),
    );
  }
  rows.push(
    await hostileOne('Content-Length 1,000 larger than the body (bodyTimeoutMs 1,000)', {
      requests: [
        {
          body: json(buildChatbotEvent({ eventId: 'short-1' })),
          contentLength: Buffer.byteLength(JSON.stringify(buildChatbotEvent({ eventId: 'short-1' }))) + 1000,
        },
      ],
    }),
  );
  rows.push(
    await hostileOne('body trickled at 1 byte / 100 ms (bodyTimeoutMs 1,000)', {
      requests: [{ body: json(buildChatbotEvent({ eventId: 'trickle-1' })), trickleMs: 100 }],
    }),
  );
  return rows;
}

const HOSTILE_ROUNDS = 3;

/** The hostile rows, run HOSTILE_ROUNDS times on fresh receivers: answers must agree; times are medians. */
async function partHostile() {
  const rounds = [];
  for (let i = 0; i < HOSTILE_ROUNDS; i += 1) rounds.push(await hostileRows());
  const med = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  const rows = rounds[0].map((first, i) => {
    const all = rounds.map((round) => round[i]);
    return {
      ...first,
      answersAgree: all.every((r) => r.answers === first.answers && r.callbacksRun === first.callbacksRun),
      ms: first.ms.map((_, j) => med(all.map((r) => r.ms[j]))),
      blockMs: med(all.map((r) => r.blockMs)),
      busyMs: med(all.map((r) => r.busyMs)),
      prototypeKeysReachingCallbacks: Math.max(...all.map((r) => r.prototypeKeysReachingCallbacks)),
      polluted: all.some((r) => r.polluted),
      rounds: all,
    };
  });
  console.log(
    `\nPart 2: hostile inputs (${HOSTILE_ROUNDS} rounds on fresh receivers, medians; bodyTimeoutMs 1,000 ms; block = max event-loop delay during a request (monitorEventLoopDelay), busy = event-loop active ms during it (eventLoopUtilization); client in the same process, so both include sending the body)`,
  );
  console.log(
    table(
      [
        'input',
        'answers',
        'ms',
        'callbacks run',
        'block ms',
        'busy ms',
        'prototype keys in payload / polluted',
      ],
      rows.map((r) => [
        r.row,
        r.answers,
        r.ms.join(', '),
        r.callbacksRun,
        fixed(r.blockMs, 1),
        fixed(r.busyMs, 1),
        `${r.prototypeKeysReachingCallbacks} / ${r.polluted ? 'YES' : 'no'}`,
      ]),
    ),
  );
  const differing = rows.filter((r) => !r.answersAgree).map((r) => r.row);
  console.log(
    differing.length === 0
      ? 'answers agree across rounds'
      : `ANSWERS DIFFERED across rounds: ${differing.join('; ')}`,
  );
  return rows;
}

/* ------------------------------------------------------------------------------------------ */
/* Part 3: slow clients                                                                        */
/* ------------------------------------------------------------------------------------------ */

async function childSlowServer() {
  const handler = createNodeHandler({ basePath: '/hooks', bodyTimeoutMs: 2000, onChatbot: () => {} });
  const { port } = await listen(handler);
  process.send({ port });
  process.on('message', async (message) => {
    if (message === 'stats') process.send({ stats: handler.stats().total });
  });
  process.on('disconnect', () => process.exit(0));
}

function slowClient(port, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length && !socket.destroyed) socket.write(body.subarray(sent, (sent += 1)));
    }, 500);
    const guard = setTimeout(() => socket.destroy(), 15_000);
    socket.on('connect', () =>
      socket.write(
        `POST /hooks/chatbot HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(guard);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0),
        code: /"code":"([^"]+)"/.exec(response)?.[1],
        ms: performance.now() - started,
        closedByServer: performance.now() - started < 14_900,
      });
    });
  });
}

async function partSlow() {
  const SLOW = 500;
  const WINDOW_S = 6;
  const child = fork(SELF, ['--child=slow-server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const body = json(buildChatbotEvent({ eventId: 'slow' }));
  // Opened in batches of 50, spread over the first second.
  const slow = [];
  for (let i = 0; i < SLOW; i += 50) {
    for (let j = 0; j < 50; j += 1) slow.push(slowClient(port, body));
    await sleep(20);
  }
  const nextBody = createBodyFactory('chatbot');
  const latencies = [];
  const load = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}/hooks/chatbot`,
        connections: 20,
        duration: WINDOW_S,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: nextBody() }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  const slowResults = await Promise.all(slow);
  const stats = await new Promise((resolve) => {
    child.once('message', (m) => resolve(m.stats));
    child.send('stats');
  });
  child.disconnect();
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
  const result = {
    slowConnections: SLOW,
    windowSeconds: WINDOW_S,
    bodyTimeoutMs: 2000,
    normal: {
      requests: load.requests.total,
      ok2xx: load['2xx'],
      non2xx: load.non2xx,
      errors: load.errors,
      timeouts: load.timeouts,
      p50: p(0.5),
      p99: p(0.99),
      max: latencies.at(-1),
      perSecond: load.requests.average,
    },
    slow: {
      got408: slowResults.filter((r) => r.status === 408 && r.code === 'request_timeout').length,
      closedByServer: slowResults.filter((r) => r.closedByServer).length,
      other: slowResults.filter((r) => r.status !== 408).map((r) => r.status),
      msMin: Math.min(...slowResults.map((r) => r.ms)),
      msMax: Math.max(...slowResults.map((r) => r.ms)),
    },
    stats,
  };
  console.log(
    `\nPart 3: slow clients (${SLOW} connections trickling 1 byte / 500 ms, node handler, bodyTimeoutMs 2,000, ${WINDOW_S} s of autocannon, 20 connections)`,
  );
  console.log(
    table(
      [
        'normal requests',
        '2xx',
        'non-2xx',
        'errors',
        'p50 ms',
        'p99 ms',
        'slow: 408',
        'slow: closed by server',
        'slow: answered after ms',
      ],
      [
        [
          result.normal.requests,
          result.normal.ok2xx,
          result.normal.non2xx,
          result.normal.errors + result.normal.timeouts,
          fixed(result.normal.p50),
          fixed(result.normal.p99),
          `${result.slow.got408}/${SLOW}`,
          `${result.slow.closedByServer}/${SLOW}`,
          `${int(result.slow.msMin)}–${int(result.slow.msMax)}`,
        ],
      ],
    ),
  );
  return result;
}

/* ------------------------------------------------------------------------------------------ */
/* Part 4: 1 MB identities in a 128 MB heap                                                    */
/* ------------------------------------------------------------------------------------------ */

async function childIdentities() {
  const heap = () => {
    for (let i = 0; i < 4; i += 1) globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  let ran = 0;
  const plain = argv.includes('--plain');
  const handler = createNodeHandler({
    basePath: '/hooks',
    bodyLimit: MiB,
    ...(plain ? { dedupe: false, statusTracking: false } : {}),
    onChatbot: () => {
      ran += 1;
    },
    onStatus: () => {
      ran += 1;
    },
  });
  const { port } = await listen(handler);
  const before = heap();
  process.send({ port, before });
  process.on('message', async (message) => {
    if (message !== 'measure') return;
    await handler.idle();
    const after = heap();
    process.send({ after, ran, stats: handler.stats().total, heapLimit: process.constrainedMemory?.() });
  });
  process.on('disconnect', () => process.exit(0));
}

async function identitiesRun(plain) {
  const EACH = 200;
  const child = fork(SELF, ['--child=identities', ...(plain ? ['--plain'] : [])], {
    execArgv: ['--max-old-space-size=128', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const { port, before } = await new Promise((resolve) => child.once('message', resolve));
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 4 });
  const big = (i) => `${i}-`.padEnd(MiB - 4096, 'y');
  let survived = 0;
  let failed = 0;
  const deadline = Date.now() + 60_000;
  let requests = 0;
  // Bodies made one at a time (each ~1 MB), alternating a chatbot event and a status receipt.
  for (let i = 0; i < 2 * EACH; i += 1) {
    if (Date.now() > deadline || child.exitCode !== null) break;
    const n = i >> 1;
    const [path, body] =
      i % 2 === 0
        ? ['/hooks/chatbot', JSON.stringify(buildChatbotEvent({ eventId: big(n) }))]
        : ['/hooks/status', JSON.stringify(buildStatus({ gstId: big(n) }))];
    requests += 1;
    try {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.body.text();
      if (res.statusCode === 200) survived += 1;
      else failed += 1;
    } catch {
      failed += 1;
    }
  }
  await pool.close();
  let measured;
  if (child.exitCode === null) {
    measured = await new Promise((resolve) => {
      child.once('message', resolve);
      child.send('measure');
    });
    child.disconnect();
  }
  const exited = await Promise.race([exit, sleep(5000).then(() => undefined)]);
  return {
    dedupeAndTracker: !plain,
    requests,
    answered200: survived,
    failed,
    ran: measured?.ran,
    heapBeforeMB: before / 1e6,
    heapAfterMB: measured ? measured.after / 1e6 : undefined,
    retainedMB: measured ? (measured.after - before) / 1e6 : undefined,
    crashed: measured === undefined,
    exit: exited,
  };
}

async function partIdentities() {
  const runs = [await identitiesRun(false), await identitiesRun(true)];
  const [full, plain] = runs;
  const dedupeAndTrackerBytes =
    full.retainedMB !== undefined && plain.retainedMB !== undefined
      ? (full.retainedMB - plain.retainedMB) * 1e6
      : undefined;
  console.log(
    '\nPart 4: 1 MB identities (server child: --max-old-space-size=128 --expose-gc, bodyLimit 1 MiB; 200 chatbot eventIds + 200 status gstIds of ~1 MB)',
  );
  console.log(
    table(
      [
        'receiver',
        'requests',
        '200',
        'failed',
        'callbacks run',
        'heap before MB',
        'heap after GC MB',
        'retained MB',
        'process',
      ],
      runs.map((r) => [
        r.dedupeAndTracker ? 'defaults (dedupe + tracker)' : 'dedupe: false, statusTracking: false',
        r.requests,
        r.answered200,
        r.failed,
        r.ran,
        fixed(r.heapBeforeMB, 1),
        fixed(r.heapAfterMB, 1),
        fixed(r.retainedMB, 2),
        r.crashed ? 'DIED' : 'alive',
      ]),
    ),
  );
  console.log(
    `retained by the dedupe store and the tracker (difference): ${int(dedupeAndTrackerBytes / 1000)} kB, ${int(dedupeAndTrackerBytes / 400)} B per event`,
  );
  return { runs, dedupeAndTrackerBytes };
}

/* ------------------------------------------------------------------------------------------ */

async function main() {
  const watchdog = setTimeout(() => {
    console.error('reliability: watchdog, past 4 minutes: stopping');
    process.exit(2);
  }, 240_000);
  watchdog.unref();
  const started = new Date();
  const results = { started: started.toISOString(), node: process.version, seed: SEED };
  if (wants(1)) results.fuzz = await partFuzz();
  if (wants(2)) results.hostile = await partHostile();
  if (wants(3)) results.slowClients = await partSlow();
  if (wants(4)) results.identities = await partIdentities();
  results.seconds = (Date.now() - started.getTime()) / 1000;
  const dir = fileURLToPath(new URL('results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}reliability-${started.toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${fixed(results.seconds, 1)} s; results in ${file}`);
  process.exit(0);
}

const child = arg('child');
if (child === 'slow-server') await childSlowServer();
else if (child === 'identities') await childIdentities();
else await main();
