// Workers forbid I/O, timers and random values at module scope ("Disallowed operation called within
// global scope"): a Worker that imports a module doing one does not start. This loads every entry a
// Worker uses in workerd, and builds at module scope what users build there (a fetch handler, the
// Queues dispatcher and consumer, the Durable Object store, the platform client and a bot), so such
// an operation anywhere in what they load fails here.
import { describe, expect, it } from '@jest/globals';
import { bundleWorker, startWorkerd } from './workerd.js';

const WORKER = `
import { env } from 'cloudflare:workers';
import * as root from 'messaging-webhooks';
import * as schemas from 'messaging-webhooks/schemas';
import * as cloudflare from 'messaging-webhooks/cloudflare';
import * as client from 'messaging-webhooks/client';

const handler = root.createFetchHandler({ token: 'secret', onIncoming: async () => {} });
const dispatcher = cloudflare.createQueuesDispatcher({ queue: env.WEBHOOKS });
const store = cloudflare.createDurableObjectDedupeStore({ namespace: env.DEDUPE });
const consumer = cloudflare.createQueueConsumer({ handlers: { onIncoming: async () => {} } });
const durable = root.createFetchHandler({ token: 'secret', dispatcher, dedupe: { store } });
const platform = client.createPlatformClient({ baseUrl: 'http://platform.test', apiKey: 'key' });
const bot = root.createBot({ agentMessages: platform.agentMessages });
const entries = { root, schemas, cloudflare, client };

export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';
export default {
  fetch: () =>
    Response.json({
      exports: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, Object.keys(entry).length])),
      built: [handler, durable, consumer, platform.agentMessages.send, bot.handlers].every((made) => typeof made === 'function'),
    }),
  queue: consumer,
};
`;

describe('the entries a Worker loads', () => {
  it('start in workerd with handlers, dispatcher, consumer, store, platform client and bot built at module scope', async () => {
    const workerd = await startWorkerd((await bundleWorker(WORKER)).code, {
      queueProducers: { WEBHOOKS: 'module-scope-webhooks' },
      durableObjects: { DEDUPE: 'WebhookDedupeObject' },
    });
    try {
      const response = await workerd.mf.dispatchFetch('http://worker/');
      expect(response.status).toBe(200);
      const body = (await response.json()) as { exports: Record<string, number>; built: boolean };
      expect(body.built).toBe(true);
      for (const count of Object.values(body.exports)) expect(count).toBeGreaterThan(5);
      expect(workerd.stderr()).not.toContain('Disallowed operation');
    } finally {
      await workerd.dispose();
    }
  });
});
