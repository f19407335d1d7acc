// node:http servers of the bench:
//
//   node-raw        collect the chunks, JSON.parse, writeHead(200) + end(): the hand-written peer
//                   of the node handler (and the machine's ceiling)
//   node-readbody   the library's collectBody() and send() around a bare JSON.parse: the HTTP part of
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
