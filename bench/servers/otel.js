// The tracing scenario's servers (scenario 9): the node-handler of servers/node.js traced with
// traceWebhooks from messaging-webhooks/otel,
//
//   node-handler-otel-noop   `@opentelemetry/api` loaded and no SDK registered (the API's no-op
//                            tracer), as an app that installs the API but not the SDK
//   node-handler-otel-sdk    an SDK (BasicTracerProvider, batch span processor) with an exporter
//                            that drops every span, and an AsyncLocalStorage context manager: the
//                            cost of making, recording and handing over the spans
import { kinds as nodeKinds } from './node.js';

export const kinds = {
  'node-handler-otel-noop': async (config) => {
    const built = await nodeKinds['node-handler'](config);
    const { traceWebhooks } = await import('../../dist/otel/index.js');
    traceWebhooks(built.receiver);
    return built;
  },
  'node-handler-otel-sdk': async (config) => {
    const built = await nodeKinds['node-handler'](config);
    const { context } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
    const { traceWebhooks } = await import('../../dist/otel/index.js');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    let exported = 0;
    const droppingExporter = {
      export(spans, done) {
        exported += spans.length;
        done({ code: 0 });
      },
      shutdown: () => Promise.resolve(),
    };
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(droppingExporter)],
    });
    traceWebhooks(built.receiver, { tracerProvider });
    return { ...built, probe: () => ({ exported }) };
  },
};
