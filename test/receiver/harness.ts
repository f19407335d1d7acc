/**
 * Every adapter of the pipeline mounted at /webhooks in its real framework, behind one small
 * client interface, so that one table of requests and expected answers runs against all of them:
 * Express via supertest, node:http on port 0, Fastify via inject(), the fetch handler called with
 * `new Request(...)` and through a real Hono app with `app.request()`, the Hono adapter through
 * `app.request()` (its fetch path) and on a real `@hono/node-server` (its node path), and the
 * Lambda handler invoked with the events of API Gateway (HTTP and REST APIs), function URLs and
 * ALB targets (test/receiver/lambda-events.ts), as the Lambda runtime invokes it.
 */
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  createFetchHandler,
  createNodeHandler,
  createWebhookRouter,
  type FetchHandlerContext,
  type FetchHandlerOptions,
  type WebhookReceiverControls,
} from '../../src/index.js';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
import { createHonoWebhooks } from '../../src/receiver/hono.js';
import { createLambdaHandler, type LambdaHttpEvent } from '../../src/receiver/lambda.js';
import { albEvent, answerOf, functionUrlEvent, httpApiEvent, restApiEvent } from './lambda-events.js';

/** A request as the table writes it: a path below the host, headers, and a raw body. */
export interface Sent {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

/** A table body as bytes (a Buffer row is sent byte for byte: invalid UTF-8 stays invalid). */
const bytesOf = (body: string | Buffer): Buffer => (typeof body === 'string' ? Buffer.from(body) : body);

/** The JSON bodies the receiver answers with: an acknowledgement or an error. */
interface AnswerBody {
  readonly received?: boolean;
  readonly duplicate?: boolean;
  readonly error?: { readonly code: string; readonly message: string; readonly [key: string]: unknown };
}

/** An answer as every adapter's client reads it. */
export interface Answer {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (undefined when empty). */
  readonly body: AnswerBody | undefined;
}

/** A receiver mounted at /webhooks in one framework. */
export interface Mounted {
  send(sent: Sent): Promise<Answer>;
  readonly controls: WebhookReceiverControls;
  stop(): Promise<void>;
}

export interface AdapterCase {
  readonly name: string;
  mount(options: FetchHandlerOptions): Promise<Mounted>;
}

const parse = (text: string): AnswerBody | undefined =>
  text === '' ? undefined : (JSON.parse(text) as AnswerBody);

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

async function fromResponse(response: Response): Promise<Answer> {
  return {
    status: response.status,
    headers: headersOf(response.headers),
    body: parse(await response.text()),
  };
}

/** A web request init: the body as bytes, so no runtime adds a default content type to it. */
function requestInit(sent: Sent): RequestInit {
  return {
    method: sent.method ?? 'POST',
    headers: { ...sent.headers },
    ...(sent.body === undefined ? {} : { body: bytesOf(sent.body) }),
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** The Express router via supertest; `preParse` mounts express.json() before it. */
function expressCase(name: string, preParse: boolean): AdapterCase {
  return {
    name,
    async mount(options) {
      const router = createWebhookRouter(options);
      const app = express();
      if (preParse) app.use(express.json());
      app.use('/webhooks', router);
      return {
        controls: router,
        async send(sent) {
          const method = (sent.method ?? 'POST').toLowerCase() as 'post' | 'get';
          let test = request(app)[method](sent.path);
          for (const [header, value] of Object.entries(sent.headers ?? {})) test = test.set(header, value);
          // With a content type set, a string goes out as is; without one, a Buffer (superagent
          // would label a string as a form).
          const hasType = Object.keys(sent.headers ?? {}).some(
            (name) => name.toLowerCase() === 'content-type',
          );
          const res =
            sent.body === undefined
              ? await test
              : typeof sent.body === 'string'
                ? await test.send(hasType ? sent.body : bytesOf(sent.body))
                : // superagent would JSON-serialise a Buffer under a JSON content type: send it as is.
                  await test.serialize((bytes: Buffer) => bytes as unknown as string).send(sent.body);
          return { status: res.status, headers: res.headers, body: parse(res.text) };
        },
        stop: async () => undefined,
      };
    },
  };
}

export const ADAPTERS: readonly AdapterCase[] = [
  expressCase('Express (supertest)', false),
  {
    name: 'node:http (port 0)',
    async mount(options) {
      const handler = createNodeHandler({ ...options, basePath: '/webhooks' });
      const server = createServer(handler);
      const port = await listen(server);
      return {
        controls: handler,
        send: async (sent) =>
          fromResponse(await fetch(`http://127.0.0.1:${port}${sent.path}`, requestInit(sent))),
        stop: () => closeServer(server),
      };
    },
  },
  {
    name: 'Fastify (inject)',
    async mount(options) {
      const app = Fastify();
      await app.register(webhooksPlugin, { ...options, prefix: '/webhooks' });
      await app.ready();
      return {
        controls: app.webhooks,
        async send(sent) {
          const res = await app.inject({
            method: (sent.method ?? 'POST') as 'POST',
            url: sent.path,
            headers: { ...sent.headers },
            ...(sent.body === undefined ? {} : { payload: bytesOf(sent.body) }),
          });
          return {
            status: res.statusCode,
            headers: res.headers as Record<string, string>,
            body: parse(res.body),
          };
        },
        stop: () => app.close(),
      };
    },
  },
  {
    name: 'fetch handler (new Request)',
    async mount(options) {
      const handler = createFetchHandler({ ...options, basePath: '/webhooks' });
      return {
        controls: handler,
        send: async (sent) =>
          fromResponse(await handler(new Request(`http://localhost${sent.path}`, requestInit(sent)))),
        stop: async () => undefined,
      };
    },
  },
  {
    name: 'fetch handler in Hono (app.request)',
    async mount(options) {
      const { app, handler } = honoApp(options);
      return {
        controls: handler,
        send: async (sent) => fromResponse(await app.request(sent.path, requestInit(sent))),
        stop: async () => undefined,
      };
    },
  },
  {
    name: 'Hono adapter (app.route, app.request)',
    async mount(options) {
      const webhooks = createHonoWebhooks(options);
      const app = new Hono().route('/webhooks', webhooks);
      return {
        controls: webhooks,
        send: async (sent) => fromResponse(await app.request(sent.path, requestInit(sent))),
        stop: async () => undefined,
      };
    },
  },
  {
    name: 'Hono adapter on @hono/node-server (port 0)',
    async mount(options) {
      const webhooks = createHonoWebhooks(options);
      const app = new Hono().route('/webhooks', webhooks);
      const server = createAdaptorServer({ fetch: app.fetch }) as Server;
      const port = await listen(server);
      return {
        controls: webhooks,
        send: async (sent) =>
          fromResponse(await fetch(`http://127.0.0.1:${port}${sent.path}`, requestInit(sent))),
        stop: () => closeServer(server),
      };
    },
  },
  ...(
    [
      ['API Gateway HTTP API, payload 2.0, named stage', (sent) => httpApiEvent(sent, 'prod')],
      ['API Gateway HTTP API, payload 2.0, $default stage', (sent) => httpApiEvent(sent)],
      ['function URL', functionUrlEvent],
      ['API Gateway REST API, payload 1.0', (sent) => restApiEvent(sent)],
      ['API Gateway REST API, every body base64', (sent) => restApiEvent(sent, { alwaysBase64: true })],
      ['ALB target', (sent) => albEvent(sent)],
      ['ALB target, multi-value headers', (sent) => albEvent(sent, { multiValue: true })],
    ] as const satisfies readonly (readonly [string, (sent: Sent) => LambdaHttpEvent])[]
  ).map(([integration, eventOf]): AdapterCase => ({
    name: `Lambda handler (${integration})`,
    async mount(options) {
      // Answering at once, as the other adapters do: the table's queue rows hold a callback
      // while the next request is answered. Waiting for callbacks (the default) is tested in
      // lambda.test.ts.
      const handler = createLambdaHandler({ ...options, basePath: '/webhooks', awaitCallbacks: false });
      return {
        controls: handler,
        send: async (sent) => answerOf(await handler(eventOf(sent))),
        stop: async () => undefined,
      };
    },
  })),
];

/** The Express router with express.json() before it: the body arrives already parsed. */
export const EXPRESS_PRE_PARSED = expressCase('Express with express.json() first', true);

/**
 * A Hono app with the fetch handler mounted the documented way, plus a JSON route of its own.
 * With `executionContext`, the handler is handed Hono's `c.executionCtx` (as on Workers).
 */
export function honoApp(options: FetchHandlerOptions, executionContext = false) {
  const handler = createFetchHandler({ ...options, basePath: '/webhooks' });
  const app = new Hono();
  app.all('/webhooks', (c) => handler(c.req.raw));
  app.all('/webhooks/*', (c) =>
    executionContext ? handler(c.req.raw, c.executionCtx as FetchHandlerContext) : handler(c.req.raw),
  );
  app.post('/api/echo', async (c) => c.json({ got: await c.req.json() }));
  return { app, handler };
}
