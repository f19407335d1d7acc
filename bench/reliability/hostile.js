// Part 2 of `npm run reliability`: hostile inputs on raw sockets (huge identities, colliding
// keys, prototype keys deep in the body, deep and wide JSON, invalid UTF-8, a BOM, tokens, odd
// paths, short and trickled bodies), each on a fresh receiver, in 3 rounds whose answers must
// agree; times are medians, with the event loop's longest block and busy time per request.
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildChatbotEvent, buildIncoming, buildSession, buildStatus } from '../../dist/testing/index.js';
import { fixed, table } from '../lib/table.js';
import { ADAPTERS, json, listen, MiB, recorder, sleep, stop } from './common.js';

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
export async function run() {
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
