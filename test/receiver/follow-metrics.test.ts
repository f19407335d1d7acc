/**
 * The fetch handler's waitUntil follower and `collectMetrics` share the pipeline's one observer
 * slot (receiver/follow.ts): each must still see every event whichever is set first.
 */
import { Registry } from 'prom-client';
import { collectMetrics } from '../../src/metrics/index.js';
import { createFetchHandler } from '../../src/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { deferred } from '../helpers/receiver.js';
import { key, samples } from '../metrics/exposition.js';

const request = (): Request =>
  new Request('https://example.test/webhooks/chatbot', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(buildChatbotEvent()),
  });

/** `callbacks_total{type="chatbot",outcome="success"}` as scraped now. */
async function succeeded(registry: Registry): Promise<number> {
  const all = samples(await registry.metrics());
  return all.get(key('wh_callbacks_total', { type: 'chatbot', outcome: 'success' })) ?? 0;
}

describe.each(['metrics first', 'waitUntil first'] as const)(
  'waitUntil and metrics together (%s)',
  (order) => {
    it('settles each request’s promise after its callback, and counts every callback', async () => {
      const gate = deferred();
      const promises: Promise<unknown>[] = [];
      const handler = createFetchHandler({
        basePath: '/webhooks',
        onChatbot: () => gate.promise,
      });
      const registry = new Registry();
      const waitUntil = (promise: Promise<unknown>) => void promises.push(promise);
      if (order === 'metrics first') collectMetrics(handler, { registry, prefix: 'wh_' });
      expect((await handler(request(), { waitUntil })).status).toBe(200);
      if (order === 'waitUntil first') collectMetrics(handler, { registry, prefix: 'wh_' });
      expect((await handler(request(), { waitUntil })).status).toBe(200);
      expect(promises).toHaveLength(2);

      let settled = 0;
      for (const promise of promises) void promise.then(() => (settled += 1));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(0);
      gate.resolve();
      await Promise.all(promises);
      await handler.idle();
      expect(settled).toBe(2);
      // Both callbacks finished after metrics were collected (the gate held them), whichever order.
      expect(await succeeded(registry)).toBe(2);
    });
  },
);
