// Express 5 servers of the bench (bodies from bench/lib/bodies.js, every answer JSON):
//
//   express-bare     express.json() and a POST route answering res.status(200).json(...): what
//                    parsing and answering alone cost on Express (context, not a target)
//   express-floor    Express's routing, the body read and answered as node-raw does (no
//                    express.json(), no res.json()): Express itself, for the cost ladder
//   express-peer     the receiver a user would hand-write on Express: express.json(), one route
//                    per type, then servers/peer.js (zod safeParse, lru-cache dedupe, p-queue),
//                    res.status(...).json(...)
//   express-router   createWebhookRouter(options) mounted with app.use('/webhooks', ...), the
//                    options of servers/options.js
import http from 'node:http';
import express from 'express';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../../dist/schemas/index.js';
import { receiverOptions } from './options.js';
import { createPeer } from './peer.js';

const ACK = JSON.stringify({ received: true });

export const kinds = {
  'express-bare': () => {
    const app = express();
    app.use(express.json());
    app.post('/webhooks/:type', (req, res) => {
      res.status(200).json({ received: true });
    });
    return { server: http.createServer(app) };
  },
  'express-floor': () => {
    const app = express();
    app.post('/webhooks/:type', (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(ACK),
        });
        res.end(ACK);
      });
    });
    return { server: http.createServer(app) };
  },
  'express-peer': (config) => {
    const peer = createPeer(config);
    const app = express();
    app.use(express.json({ limit: '1mb' }));
    for (const type of WEBHOOK_TYPES) {
      app.post(`/webhooks/${WEBHOOK_PATHS[type]}`, (req, res) => {
        const answer = peer.receive(type, req.body);
        res.status(answer.status).json(answer.body);
      });
    }
    return { server: http.createServer(app), receiver: peer };
  },
  'express-router': async (config) => {
    const { createWebhookRouter } = await import('../../dist/index.js');
    const receiver = createWebhookRouter(await receiverOptions(config));
    const app = express();
    app.use('/webhooks', receiver);
    return { server: http.createServer(app), receiver };
  },
};
