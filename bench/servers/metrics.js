// The metrics scenario's server (scenario 8):
//
//   node-handler-metrics   the node-handler of servers/node.js with collectMetrics on a
//                          prom-client Registry, scraped once a second as Prometheus would
import { Registry } from 'prom-client';
import { kinds as nodeKinds } from './node.js';

export const kinds = {
  'node-handler-metrics': async (config) => {
    const built = await nodeKinds['node-handler'](config);
    const { collectMetrics } = await import('../../dist/metrics/index.js');
    const registry = new Registry();
    collectMetrics(built.receiver, { registry });
    setInterval(() => void registry.metrics(), 1000).unref();
    return built;
  },
};
