// One server of the tracing scenario (bench/otel.js), in its own process (pinned by the
// orchestrator). argv[2] is a JSON config: { kind }:
// - `node-handler`: createNodeHandler on node:http, instant callbacks, as scenario 1;
// - `node-handler-otel-noop`: the same traced with traceWebhooks, `@opentelemetry/api` loaded and
//   no SDK registered (the API's no-op tracer), as an app that installs the API but not the SDK;
// - `node-handler-otel-sdk`: traced with an SDK (BasicTracerProvider, batch span processor) and an
//   exporter that drops every span, with an AsyncLocalStorage context manager: the cost of
//   making, recording and handing over the spans.
// Reports its port once listening, then answers `probe` until stopped, as bench/server.js does.
import { instantReceiver, serveReceiver } from './lib/node-receiver.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const receiver = instantReceiver();
let exported = 0;
if (config.kind === 'node-handler-otel-noop') {
  const { traceWebhooks } = await import('../dist/otel/index.js');
  traceWebhooks(receiver);
} else if (config.kind === 'node-handler-otel-sdk') {
  const { context } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { traceWebhooks } = await import('../dist/otel/index.js');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const noopExporter = {
    export(spans, done) {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] });
  traceWebhooks(receiver, { tracerProvider });
} else if (config.kind !== 'node-handler') {
  throw new Error(`unknown otel server kind ${config.kind}`);
}
await serveReceiver(receiver, () => ({ exported }));
