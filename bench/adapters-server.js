// One server of the adapter scenario (bench/adapters.js), in its own process (pinned by the
// orchestrator). argv[2] is a JSON config: { kind }. Kinds: the Fastify plugin and its ceiling (a
// hand-written Fastify route: Fastify's JSON parser, zod safeParse with the same schemas the
// pipeline uses, 200), and the fetch handler in Hono on @hono/node-server and its ceiling (a
// bare Hono route: await c.req.json(), 200). Reports its port once listening, then answers `probe`
// (CPU time, memory, receiver stats) until stopped, as bench/server.js does.
import { serve } from '@hono/node-server';
import Fastify from 'fastify';
import { Hono } from 'hono';
import {
  chatbotEventV1Schema,
  chatbotEventV2Schema,
  detectChatbotPayloadVersion,
  incomingMessage,
  partnerEvent,
  sessionStatusSchema,
  statusUpdateSchema,
  WEBHOOK_PATHS,
  WEBHOOK_TYPES,
} from '../dist/schemas/index.js';
import { serveCommands } from './lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
// Variants for locating costs (bench/adapters-callgrind.js): `<kind>:no-callbacks` registers no
// callback (parse, validate, ack), `<kind>:no-dedupe` turns deduplication off, `<kind>:full-store`
// starts with the dedupe store already holding DEFAULT_DEDUPE_MAX keys (the state a long bench run
// reaches: every new event evicts one; a short callgrind window would otherwise measure a small store).
const [kind, variant] = String(config.kind).split(':');

/** Instant callbacks for the five types, as bench/server.js registers them (`:sync`: not async). */
const handler = variant === 'sync' ? () => {} : async () => {};
const callbacks =
  variant === 'no-callbacks'
    ? {}
    : {
        onIncoming: handler,
        onStatus: handler,
        onSession: handler,
        onEvent: handler,
        onChatbot: handler,
        ...(variant === 'no-dedupe' ? { dedupe: false } : {}),
        ...(variant === 'full-store' ? { dedupe: { store: await fullStore() } } : {}),
      };

/** The default in-memory store, filled with DEFAULT_DEDUPE_MAX keys shaped as the pipeline's. */
async function fullStore() {
  const { createMemoryDedupeStore, DEFAULT_DEDUPE_MAX, digestDedupeKey } = await import('../dist/index.js');
  const store = createMemoryDedupeStore();
  for (let i = 0; i < DEFAULT_DEDUPE_MAX; i += 1)
    store.claim(digestDedupeKey('incoming', `["prefill-${i}"]`));
  return store;
}

/** zod safeParse per type, with the schemas the pipeline validates with (src/schemas/parse.ts). */
const VALIDATE = {
  incoming: (body) => incomingMessage.safeParse(body),
  status: (body) => statusUpdateSchema.safeParse(body),
  session: (body) => sessionStatusSchema.safeParse(body),
  event: (body) => partnerEvent.safeParse(body),
  chatbot: (body) =>
    (detectChatbotPayloadVersion(body) === 'v2' ? chatbotEventV2Schema : chatbotEventV1Schema).safeParse(
      body,
    ),
};
const TYPE_BY_PATH = Object.fromEntries(WEBHOOK_TYPES.map((type) => [WEBHOOK_PATHS[type], type]));

let receiver;
let address;

switch (kind) {
  case 'fastify-bare': {
    const app = Fastify();
    app.post('/webhooks/:type', (request, reply) => {
      const result = VALIDATE[TYPE_BY_PATH[request.params.type]](request.body);
      if (result.success) reply.send({ received: true });
      else reply.code(400).send({ error: { code: 'invalid_payload' } });
    });
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    break;
  }
  case 'fastify-plugin': {
    const { webhooksPlugin } = await import('../dist/fastify/index.js');
    const app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', ...callbacks });
    receiver = app.webhooks;
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    break;
  }
  case 'hono-bare': {
    const app = new Hono();
    app.post('/webhooks/:type', async (c) => {
      await c.req.json();
      return c.json({ received: true });
    });
    address = await listenHono(app);
    break;
  }
  case 'hono-fetch': {
    const { createFetchHandler } = await import('../dist/index.js');
    const handler = createFetchHandler({ basePath: '/webhooks', ...callbacks });
    receiver = handler;
    const app = new Hono();
    app.all('/webhooks/*', (c) => handler(c.req.raw));
    address = await listenHono(app);
    break;
  }
  default:
    throw new Error(`unknown adapter server kind ${config.kind}`);
}

function listenHono(app) {
  return new Promise((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
}

serveCommands({
  probe: () => ({
    cpu: process.cpuUsage(),
    memory: process.memoryUsage(),
    stats: receiver ? receiver.stats() : undefined,
    at: process.hrtime.bigint().toString(),
  }),
});
process.send({ ready: true, port: Number(new URL(address).port) });
