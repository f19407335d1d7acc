// One server under test, in its own process (pinned by the orchestrator). argv[2] is a JSON
// config: { kind, variant, callbacks, callbackMs, maxQueueSize, concurrency, redisPath }.
// Reports its port once listening, then answers `probe` (CPU time, memory, receiver stats) until stopped.
import http from 'node:http';
import express from 'express';
import { serveCommands } from './lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const ACK = JSON.stringify({ received: true });

/** The five callbacks: resolved at once, or (`slow`) settling after `callbackMs`. */
function callbacks() {
  const slowMs = config.callbackMs ?? 30_000;
  const handler =
    config.callbacks === 'slow'
      ? () => new Promise((resolve) => setTimeout(resolve, slowMs).unref())
      : async () => {};
  return {
    onIncoming: handler,
    onStatus: handler,
    onSession: handler,
    onEvent: handler,
    onChatbot: handler,
  };
}

async function receiverOptions() {
  // Variants for the cost ladder: no callback registered (parse + validate + ack only), or
  // callbacks without deduplication.
  const options = config.variant === 'no-callbacks' ? {} : { ...callbacks() };
  if (config.variant === 'no-dedupe') options.dedupe = false;
  if (config.maxQueueSize !== undefined) options.maxQueueSize = config.maxQueueSize;
  if (config.concurrency !== undefined) options.concurrency = config.concurrency;
  if (config.redisPath !== undefined) {
    // Redis mode: the shared dedupe store and the BullMQ dispatcher, on the bench's own
    // redis-server (a unix socket). No worker runs: the receiver's side (claim + add) is measured.
    const { createRedisDedupeStore, createBullMQDispatcher } = await import('../dist/redis/index.js');
    const connection = { path: config.redisPath };
    const store = createRedisDedupeStore({ connection });
    const dispatcher = createBullMQDispatcher({ connection });
    await Promise.all([store.ready(), dispatcher.ready()]);
    options.dedupe = { store };
    options.dispatcher = dispatcher;
  }
  return options;
}

let receiver;
let server;

switch (config.kind) {
  case 'express-bare': {
    // The Express ceiling: what an app that parses JSON and answers 200 costs.
    const app = express();
    app.use(express.json());
    app.post('/webhooks/:type', (req, res) => {
      res.status(200).json({ received: true });
    });
    server = http.createServer(app);
    break;
  }
  case 'express-floor': {
    // Express's own floor: its routing, with the body read and answered as raw node:http does
    // (no express.json(), no res.json()), to split the Express ceiling into Express and its parser.
    const app = express();
    app.post('/webhooks/:type', (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(ACK),
        });
        res.end(ACK);
      });
    });
    server = http.createServer(app);
    break;
  }
  case 'express-router': {
    const { createWebhookRouter } = await import('../dist/index.js');
    receiver = createWebhookRouter(await receiverOptions());
    const app = express();
    app.use('/webhooks', receiver);
    server = http.createServer(app);
    break;
  }
  case 'node-raw': {
    // The machine's ceiling: read the body, JSON.parse it, answer 200.
    server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        let status = 200;
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          status = 400;
        }
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(ACK),
        });
        res.end(ACK);
      });
    });
    break;
  }
  case 'node-readbody': {
    // The library's own body reader and answer writer around a bare JSON.parse: the HTTP part of
    // createNodeHandler without the pipeline.
    const { readBody } = await import('../dist/index.js');
    const { send } = await import('../dist/receiver/handle.js');
    const answer = { status: 200, headers: {}, body: ACK };
    server = http.createServer((req, res) => {
      readBody(req, 1_048_576).then(
        (body) => {
          JSON.parse(body.toString('utf8'));
          send(res, answer);
        },
        () => send(res, { status: 400, headers: {}, body: '{}' }),
      );
    });
    break;
  }
  case 'node-handler': {
    const { createNodeHandler } = await import('../dist/index.js');
    receiver = createNodeHandler({ basePath: '/webhooks', ...(await receiverOptions()) });
    server = http.createServer(receiver);
    break;
  }
  default:
    throw new Error(`unknown server kind ${config.kind}`);
}

server.listen(0, '127.0.0.1', () => {
  serveCommands({
    probe: () => ({
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      stats: receiver ? receiver.stats() : undefined,
      at: process.hrtime.bigint().toString(),
    }),
  });
  process.send({ ready: true, port: server.address().port });
});
