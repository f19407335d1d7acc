// The receiver that the metrics and tracing scenarios measure (bench/metrics-server.js,
// bench/otel-server.js): createNodeHandler with instant callbacks for all five types, as scenario
// 1 uses, served on node:http and answering `probe` until stopped, as bench/server.js does.
import http from 'node:http';
import { createNodeHandler } from '../../dist/index.js';
import { serveCommands } from './proc.js';

/** The receiver, before it is served: a scenario attaches its metrics or tracer to it first. */
export function instantReceiver() {
  const handler = async () => {};
  return createNodeHandler({
    basePath: '/webhooks',
    onIncoming: handler,
    onStatus: handler,
    onSession: handler,
    onEvent: handler,
    onChatbot: handler,
  });
}

/** Serves `receiver`, answers `probe` (with `extra()` merged in) and reports the port. */
export async function serveReceiver(receiver, extra = () => ({})) {
  const server = http.createServer(receiver);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  serveCommands({
    probe: () => ({
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      stats: receiver.stats(),
      ...extra(),
      at: process.hrtime.bigint().toString(),
    }),
  });
  process.send({ ready: true, port: server.address().port });
}
