// The server of the redis-wait scenario (bench/scenarios/redis-wait.js), in its own process:
// createNodeHandler in Redis mode (the Redis dedupe store and the BullMQ dispatcher) on the
// scenario's primary, with or without `waitForReplicas`. argv[2] is a JSON config:
// { redisPath, replicas }; replicas 0 is the default acknowledgement (the job on the primary).
// No worker runs: the receiver's side (claim, add, replica check) is measured.
import http from 'node:http';
import { createNodeHandler } from '../../dist/index.js';
import { createBullMQDispatcher, createRedisDedupeStore } from '../../dist/redis/index.js';
import { serveCommands } from '../lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const connection = { path: config.redisPath };
const store = createRedisDedupeStore({ connection });
const dispatcher = createBullMQDispatcher({
  connection,
  ...(config.replicas > 0 ? { waitForReplicas: { replicas: config.replicas } } : {}),
});
await Promise.all([store.ready(), dispatcher.ready()]);
const handler = async () => {};
const receiver = createNodeHandler({
  basePath: '/webhooks',
  onIncoming: handler,
  onStatus: handler,
  onSession: handler,
  onEvent: handler,
  onChatbot: handler,
  dedupe: { store },
  dispatcher,
});
const server = http.createServer(receiver);
server.listen(0, '127.0.0.1', () => {
  serveCommands({
    probe: () => ({
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      stats: receiver.stats(),
      at: process.hrtime.bigint().toString(),
    }),
  });
  process.send({ ready: true, port: server.address().port });
});
