// One server of the metrics scenario (bench/metrics.js), in its own process (pinned by the
// orchestrator). argv[2] is a JSON config: { kind }: `node-handler` (createNodeHandler on
// node:http, instant callbacks, as scenario 1) or `node-handler-metrics` (the same with
// collectMetrics on a prom-client Registry, scraped once a second as Prometheus would). Reports its
// port once listening, then answers `probe` until stopped, as bench/server.js does.
import { Registry } from 'prom-client';
import { instantReceiver, serveReceiver } from './lib/node-receiver.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const receiver = instantReceiver();
if (config.kind === 'node-handler-metrics') {
  const { collectMetrics } = await import('../dist/metrics/index.js');
  const registry = new Registry();
  collectMetrics(receiver, { registry });
  setInterval(() => void registry.metrics(), 1000).unref();
} else if (config.kind !== 'node-handler') {
  throw new Error(`unknown metrics server kind ${config.kind}`);
}
await serveReceiver(receiver);
