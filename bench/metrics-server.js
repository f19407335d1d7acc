// One server of the metrics scenario (bench/metrics.js), in its own process (pinned by the
// orchestrator). argv[2] is a JSON config: { kind }: `node-handler` (createNodeHandler on
// node:http, instant callbacks, as scenario 1) or `node-handler-metrics` (the same with
// collectMetrics on a prom-client Registry, scraped once a second as Prometheus would). Reports its
// port once listening, then answers `probe` until stopped, as bench/server.js does.
import http from 'node:http';
import { Registry } from 'prom-client';
import { createNodeHandler } from '../dist/index.js';
import { serveCommands } from './lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const handler = async () => {};
const receiver = createNodeHandler({
  basePath: '/webhooks',
  onIncoming: handler,
  onStatus: handler,
  onSession: handler,
  onEvent: handler,
  onChatbot: handler,
});
if (config.kind === 'node-handler-metrics') {
  const { collectMetrics } = await import('../dist/metrics/index.js');
  const registry = new Registry();
  collectMetrics(receiver, { registry });
  setInterval(() => void registry.metrics(), 1000).unref();
} else if (config.kind !== 'node-handler') {
  throw new Error(`unknown metrics server kind ${config.kind}`);
}
const server = http.createServer(receiver);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

serveCommands({
  probe: () => ({
    cpu: process.cpuUsage(),
    memory: process.memoryUsage(),
    stats: receiver.stats(),
    at: process.hrtime.bigint().toString(),
  }),
});
process.send({ ready: true, port: server.address().port });
