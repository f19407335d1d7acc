// Hono 4 servers of the bench, on @hono/node-server:
//
//   hono-bare    POST /webhooks/:type: await c.req.json(), c.json({ received: true }): parsing
//                alone on Hono (context, not a target)
//   hono-peer    the receiver a user would hand-write on Hono: one route per type, await
//                c.req.json() (400 when it is not JSON), then servers/peer.js (zod safeParse,
//                lru-cache dedupe, p-queue), c.json(body, status)
//   hono-fetch   app.all('/webhooks/*', (c) => handler(c.req.raw)) over
//                createFetchHandler({ basePath: '/webhooks', ... }), the options of
//                servers/options.js
//   hono-adapter app.route('/webhooks', createHonoWebhooks({ ... })) from messaging-webhooks/hono,
//                the options of servers/options.js (on @hono/node-server: its node path)
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../../dist/schemas/index.js';
import { receiverOptions } from './options.js';
import { createPeer } from './peer.js';

const serve = (app) => ({ server: createAdaptorServer({ fetch: app.fetch }) });

export const kinds = {
  'hono-bare': () => {
    const app = new Hono();
    app.post('/webhooks/:type', async (c) => {
      await c.req.json();
      return c.json({ received: true });
    });
    return serve(app);
  },
  'hono-peer': (config) => {
    const peer = createPeer(config);
    const app = new Hono();
    for (const type of WEBHOOK_TYPES) {
      app.post(`/webhooks/${WEBHOOK_PATHS[type]}`, async (c) => {
        let body;
        try {
          body = await c.req.json();
        } catch {
          return c.json({ error: { code: 'invalid_json' } }, 400);
        }
        const answer = peer.receive(type, body);
        return c.json(answer.body, answer.status);
      });
    }
    return { ...serve(app), receiver: peer };
  },
  'hono-fetch': async (config) => {
    const { createFetchHandler } = await import('../../dist/index.js');
    const receiver = createFetchHandler({ basePath: '/webhooks', ...(await receiverOptions(config)) });
    const app = new Hono();
    app.all('/webhooks/*', (c) => receiver(c.req.raw));
    return { ...serve(app), receiver };
  },
  'hono-adapter': async (config) => {
    const { createHonoWebhooks } = await import('../../dist/hono/index.js');
    const receiver = createHonoWebhooks(await receiverOptions(config));
    const app = new Hono();
    app.route('/webhooks', receiver);
    return { ...serve(app), receiver };
  },
};
