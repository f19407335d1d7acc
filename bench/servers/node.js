// node:http servers of the bench:
//
//   node-raw        collect the chunks, JSON.parse, writeHead(200) + end(): node:http's floor (the
//                   machine's ceiling for a JSON endpoint)
//   node-peer       the receiver a user would hand-write on node:http: one path per type, the
//                   chunks collected, JSON.parse (400 when it is not JSON), then servers/peer.js
//                   (zod safeParse, lru-cache dedupe, p-queue), the answer as JSON
//   node-readbody   the library's collectBody() and send() around a bare JSON.parse: the HTTP part of
//                   the node handler without the pipeline (cost ladder only; internal modules of
//                   dist/, so it fails with a clear error when they move)
//   node-handler    http.createServer(createNodeHandler({ basePath: '/webhooks', ... })), the
//                   options of servers/options.js
import http from 'node:http';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../../dist/schemas/index.js';
import { receiverOptions } from './options.js';
import { createPeer } from './peer.js';

const ACK = JSON.stringify({ received: true });
const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(ACK),
};

export const kinds = {
  'node-raw': () => ({
    server: http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        let status = 200;
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          status = 400;
        }
        res.writeHead(status, HEADERS);
        res.end(ACK);
      });
    }),
  }),
  'node-peer': (config) => {
    const peer = createPeer(config);
    const typeOf = new Map(WEBHOOK_TYPES.map((type) => [`/webhooks/${WEBHOOK_PATHS[type]}`, type]));
    const reply = (res, status, body) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    return {
      server: http.createServer((req, res) => {
        const type = req.method === 'POST' ? typeOf.get(req.url) : undefined;
        if (type === undefined) {
          req.resume();
          return reply(res, 404, { error: { code: 'not_found' } });
        }
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
          let body;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return reply(res, 400, { error: { code: 'invalid_json' } });
          }
          const answer = peer.receive(type, body);
          reply(res, answer.status, answer.body);
        });
      }),
      receiver: peer,
    };
  },
  'node-readbody': async () => {
    let collectBody;
    let send;
    try {
      ({ collectBody } = await import('../../dist/receiver/body.js'));
      ({ send } = await import('../../dist/receiver/handle.js'));
    } catch (error) {
      throw new Error(`node-readbody needs collectBody and send from dist/: ${error.message}`, {
        cause: error,
      });
    }
    if (typeof collectBody !== 'function' || typeof send !== 'function')
      throw new Error(
        'node-readbody needs collectBody (dist/receiver/body.js) and send (dist/receiver/handle.js)',
      );
    const answer = { status: 200, headers: {}, body: ACK };
    const refused = { status: 400, headers: {}, body: '{}' };
    return {
      server: http.createServer((req, res) => {
        collectBody(req, 1_048_576, (error, body) => {
          if (error !== undefined) return send(res, refused);
          try {
            JSON.parse(body.toString('utf8'));
          } catch {
            return send(res, refused);
          }
          send(res, answer);
        });
      }),
    };
  },
  'node-handler': async (config) => {
    const { createNodeHandler } = await import('../../dist/index.js');
    const receiver = createNodeHandler({ basePath: '/webhooks', ...(await receiverOptions(config)) });
    return { server: http.createServer(receiver), receiver };
  },
};
