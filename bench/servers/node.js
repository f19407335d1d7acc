// node:http servers of the bench:
//
//   node-raw        collect the chunks, JSON.parse, writeHead(200) + end(): the hand-written peer
//                   of the node handler (and the machine's ceiling)
//   node-readbody   the library's readBody() and send() around a bare JSON.parse: the HTTP part of
//                   the node handler without the pipeline (cost ladder only; internal modules of
//                   dist/, so it fails with a clear error when they move)
//   node-handler    http.createServer(createNodeHandler({ basePath: '/webhooks', ... })), the
//                   options of servers/options.js
import http from 'node:http';
import { receiverOptions } from './options.js';

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
  'node-readbody': async () => {
    let readBody;
    let send;
    try {
      ({ readBody } = await import('../../dist/index.js'));
      ({ send } = await import('../../dist/receiver/handle.js'));
    } catch (error) {
      throw new Error(`node-readbody needs readBody and send from dist/: ${error.message}`, { cause: error });
    }
    if (typeof readBody !== 'function' || typeof send !== 'function')
      throw new Error('node-readbody needs readBody (dist/index.js) and send (dist/receiver/handle.js)');
    const answer = { status: 200, headers: {}, body: ACK };
    return {
      server: http.createServer((req, res) => {
        readBody(req, 1_048_576).then(
          (body) => {
            JSON.parse(body.toString('utf8'));
            send(res, answer);
          },
          () => send(res, { status: 400, headers: {}, body: '{}' }),
        );
      }),
    };
  },
  'node-handler': async (config) => {
    const { createNodeHandler } = await import('../../dist/index.js');
    const receiver = createNodeHandler({ basePath: '/webhooks', ...(await receiverOptions(config)) });
    return { server: http.createServer(receiver), receiver };
  },
};
