// The metrics scenario's server (scenario 8):
//
//   node-handler-metrics   the node-handler of servers/node.js with collectMetrics on a
//                          prom-client Registry, scraped once a second as Prometheus would;
//                          with `scrapeEveryMs: 0` not on a clock but on `poke` (servers/serve.js)
//                          only, as lib/instructions.js does between batches of requests
import { Registry } from 'prom-client';
import { kinds as nodeKinds } from './node.js';

export const kinds = {
  'node-handler-metrics': async (config) => {
    const built = await nodeKinds['node-handler'](config);
    const { collectMetrics } = await import('../../dist/metrics/index.js');
    const registry = new Registry();
    collectMetrics(built.receiver, { registry });
    const scrapeEveryMs = config.scrapeEveryMs ?? 1000;
    if (scrapeEveryMs > 0) setInterval(() => void registry.metrics(), scrapeEveryMs).unref();
    return { ...built, poke: () => registry.metrics() };
  },
};
