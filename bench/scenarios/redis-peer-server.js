// The servers of the redis-peer scenario (bench/scenarios/redis-peer.js), each in its own process:
// argv[2] is a JSON config { kind, redisPath, mode }.
//
//   library   http.createServer(createNodeHandler({ basePath: '/webhooks', onChatbot, ... })) in
//             Redis mode: createRedisDedupeStore + createBullMQDispatcher (defaults: 16 partition
//             queues) on the scenario's redis-server. `mode: 'three-step'` hides the store's
//             claim step from the pipeline (a wrapper with its other methods), so it claims a
//             lease, adds and confirms in turn: the Redis mode as it was before the claim moved
//             into the add (bench/tools/redis-commands.js compares the two)
//   peer      the durable receiver a user would hand-write on the same libraries: node:http, the
//             chunks collected, JSON.parse (400 when not JSON), zod safeParse with the package's
//             own schemas (400 when invalid), ioredis `SET chatbot:<eventId> 1 EX 259200 NX` (a
//             duplicate answered 200 { duplicate: true }), BullMQ `queue.add` on one queue awaited
//             before the 200, the key deleted when the add fails (503). A user's ioredis client
//             and Queue, both on defaults
//
// What the library does besides, and the peer does not: a claim that cannot be orphaned (the peer,
// killed between SET and add, drops the event for three days), one conversation's events in order
// (partition queues), request ids, stats, logs, body limits, a deadline on every enqueue.
// No worker runs: the receiver's side is what is measured.
import http from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createNodeHandler } from '../../dist/index.js';
import { createBullMQDispatcher, createRedisDedupeStore } from '../../dist/redis/index.js';
import * as schemas from '../../dist/schemas/index.js';
import { serveCommands } from '../lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const connection = { path: config.redisPath };
const noop = async () => {};

/** The library's node handler in Redis mode. */
async function library() {
  const store = createRedisDedupeStore({ connection });
  const dispatcher = createBullMQDispatcher({ connection });
  await Promise.all([store.ready(), dispatcher.ready()]);
  const dedupeStore =
    config.mode === 'three-step'
      ? {
          claim: (key) => store.claim(key),
          release: (key) => store.release(key),
          confirm: (key) => store.confirm(key),
          forget: (key) => store.forget(key),
          health: () => store.health(),
          close: () => store.close(),
        }
      : store;
  const receiver = createNodeHandler({
    basePath: '/webhooks',
    onIncoming: noop,
    onStatus: noop,
    onSession: noop,
    onEvent: noop,
    onChatbot: noop,
    dedupe: { store: dedupeStore },
    dispatcher,
  });
  return { server: http.createServer(receiver), stats: () => receiver.stats() };
}

const DEDUPE_TTL_S = 259_200; // 3 days
const OK = JSON.stringify({ received: true });
const DUPLICATE = JSON.stringify({ received: true, duplicate: true });
const INVALID = JSON.stringify({ error: { code: 'invalid_payload' } });
const UNAVAILABLE = JSON.stringify({ error: { code: 'unavailable' } });

/** The hand-written durable receiver (chatbot events). */
function peer() {
  const redis = new Redis(connection);
  const queue = new Queue('webhooks', { connection: redis });
  const chatbot = {
    v1: schemas.chatbotEventV1 ?? schemas.chatbotEventV1Schema,
    v2: schemas.chatbotEventV2 ?? schemas.chatbotEventV2Schema,
  };
  const counts = { received: 0, acked: 0, invalid: 0, duplicates: 0, rejected: 0 };
  const reply = (res, status, text) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  async function receive(body, res) {
    counts.received += 1;
    let payload;
    try {
      payload = JSON.parse(body);
    } catch {
      counts.invalid += 1;
      return reply(res, 400, INVALID);
    }
    const result = chatbot[schemas.detectChatbotPayloadVersion(payload)].safeParse(payload);
    if (!result.success) {
      counts.invalid += 1;
      return reply(res, 400, INVALID);
    }
    const key = `chatbot:${result.data.eventId}`;
    try {
      if ((await redis.set(key, '1', 'EX', DEDUPE_TTL_S, 'NX')) === null) {
        counts.duplicates += 1;
        counts.acked += 1;
        return reply(res, 200, DUPLICATE);
      }
    } catch {
      counts.rejected += 1;
      return reply(res, 503, UNAVAILABLE);
    }
    try {
      await queue.add('chatbot', result.data);
    } catch {
      await redis.del(key).catch(() => undefined);
      counts.rejected += 1;
      return reply(res, 503, UNAVAILABLE);
    }
    counts.acked += 1;
    return reply(res, 200, OK);
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks/chatbot') {
      req.resume();
      return reply(res, 404, JSON.stringify({ error: { code: 'not_found' } }));
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => void receive(Buffer.concat(chunks).toString('utf8'), res));
  });
  return { server, stats: () => ({ chatbot: { ...counts }, total: { ...counts } }) };
}

const built = config.kind === 'peer' ? peer() : await library();
built.server.listen(0, '127.0.0.1', () => {
  serveCommands({
    probe: () => ({
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      stats: built.stats(),
      at: process.hrtime.bigint().toString(),
    }),
  });
  process.send({ ready: true, port: built.server.address().port });
});
