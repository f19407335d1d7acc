// Fastify 5 servers of the bench:
//
//   fastify-bare     POST /webhooks/:type: Fastify's JSON parser, zod safeParse with the schemas
//                    the pipeline validates with, reply.send({ received: true }) (400 when
//                    invalid): validation alone on Fastify (context, not a target)
//   fastify-peer     the receiver a user would hand-write on Fastify: one route per type,
//                    Fastify's JSON parser, then servers/peer.js (zod safeParse, lru-cache dedupe,
//                    p-queue), reply.code(...).send(...)
//   fastify-plugin   app.register(webhooksPlugin, { prefix: '/webhooks', ... }), the options of
//                    servers/options.js
import Fastify from 'fastify';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../../dist/schemas/index.js';
import { receiverOptions } from './options.js';
import { createPeer, TYPE_BY_PATH, VALIDATE } from './peer.js';

const listen = async (app) => ({
  port: Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port),
});

export const kinds = {
  'fastify-bare': async () => {
    const app = Fastify();
    app.post('/webhooks/:type', (request, reply) => {
      const result = VALIDATE[TYPE_BY_PATH[request.params.type]](request.body);
      if (result.success) reply.send({ received: true });
      else reply.code(400).send({ error: { code: 'invalid_payload' } });
    });
    return listen(app);
  },
  'fastify-peer': async (config) => {
    const peer = createPeer(config);
    const app = Fastify();
    for (const type of WEBHOOK_TYPES) {
      app.post(`/webhooks/${WEBHOOK_PATHS[type]}`, (request, reply) => {
        const answer = peer.receive(type, request.body);
        reply.code(answer.status).send(answer.body);
      });
    }
    return { ...(await listen(app)), receiver: peer };
  },
  'fastify-plugin': async (config) => {
    const { webhooksPlugin } = await import('../../dist/fastify/index.js');
    const app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', ...(await receiverOptions(config)) });
    return { ...(await listen(app)), receiver: app.webhooks };
  },
};
