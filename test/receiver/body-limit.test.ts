/**
 * A 10 MiB body, streamed without a declared length, to every adapter with a 1 MiB limit: each
 * answers 413 with the JSON error, without waiting for the rest, and without buffering it (memory
 * stays under 20 MiB above the baseline). The fetch handler stops reading outright: it pulls at
 * most the limit and a chunk from the body stream.
 */
import { serve, type ServerType } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createFetchHandler, createNodeHandler, createWebhookRouter } from '../../src/index.js';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
import { honoApp } from './harness.js';

const MiB = 1024 * 1024;
const LIMIT = MiB;
const TOTAL = 10 * MiB;
const CHUNK = 64 * 1024;
const options = { bodyLimit: LIMIT, onChatbot: () => undefined };

/** Memory that a buffered body would show in: the heap and the ArrayBuffers behind Buffers. */
const memory = (): number => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/**
 * A body source of TOTAL bytes in CHUNK pieces, made on demand: counts what was taken from it
 * and samples memory at every chunk.
 */
function generator() {
  const baseline = memory();
  const state = { produced: 0, peakAbove: 0, producedAtAnswer: -1 };
  const chunk = Buffer.alloc(CHUNK, 0x20);
  const next = (): Buffer | undefined => {
    if (state.produced >= TOTAL) return undefined;
    state.produced += CHUNK;
    state.peakAbove = Math.max(state.peakAbove, memory() - baseline);
    // A fresh copy per chunk, as a network read would deliver it.
    return Buffer.from(chunk);
  };
  return { state, next };
}

interface Outcome {
  status: number;
  code: string | undefined;
  producedAtAnswer: number;
  produced: number;
  peakAbove: number;
}

/** POSTs the generated body chunked to a listening server; resolves on the answer. */
function postStreamed(port: number, path: string): Promise<Outcome> {
  const { state, next } = generator();
  return new Promise((resolve, reject) => {
    const body = new Readable({
      read() {
        this.push(next() ?? null);
      },
    });
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        state.producedAtAnswer = state.produced;
        let text = '';
        res.on('data', (data: Buffer) => (text += data.toString()));
        res.on('end', () => {
          body.unpipe(req);
          req.destroy();
          const parsed = JSON.parse(text) as { error?: { code?: string } };
          resolve({ status: res.statusCode ?? 0, code: parsed.error?.code, ...state });
        });
      },
    );
    // The server may close the connection once it has answered: not a failure here.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (state.producedAtAnswer < 0) reject(error);
    });
    body.pipe(req);
  });
}

/** A web ReadableStream over the generator: pull-based, so what the handler reads is what it pulled. */
function streamedRequest(url: string) {
  const { state, next } = generator();
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = next();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const request = new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  });
  return { state, request };
}

async function fromResponse(
  response: Response,
  state: ReturnType<typeof generator>['state'],
): Promise<Outcome> {
  state.producedAtAnswer = state.produced;
  const parsed = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: parsed.error?.code, ...state };
}

const listening = (server: Server): Promise<number> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** Each adapter, serving one streamed request; `stopsReading`: it pulls no more than it needs. */
const CASES: readonly { name: string; stopsReading: boolean; run: () => Promise<Outcome> }[] = [
  {
    name: 'Express',
    stopsReading: false,
    async run() {
      const app = express();
      app.use('/webhooks', createWebhookRouter(options));
      const server = createServer(app);
      try {
        return await postStreamed(await listening(server), '/webhooks/chatbot');
      } finally {
        server.closeAllConnections();
        server.close();
      }
    },
  },
  {
    name: 'node:http',
    stopsReading: false,
    async run() {
      const server = createServer(createNodeHandler({ ...options, basePath: '/webhooks' }));
      try {
        return await postStreamed(await listening(server), '/webhooks/chatbot');
      } finally {
        server.closeAllConnections();
        server.close();
      }
    },
  },
  {
    name: 'Fastify',
    stopsReading: false,
    async run() {
      const app = Fastify();
      await app.register(webhooksPlugin, { ...options, prefix: '/webhooks' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        return await postStreamed((app.server.address() as AddressInfo).port, '/webhooks/chatbot');
      } finally {
        app.server.closeAllConnections();
        await app.close();
      }
    },
  },
  {
    name: 'fetch handler (new Request)',
    stopsReading: true,
    async run() {
      const handler = createFetchHandler({ ...options, basePath: '/webhooks' });
      const { state, request } = streamedRequest('http://localhost/webhooks/chatbot');
      return fromResponse(await handler(request), state);
    },
  },
  {
    name: 'fetch handler in Hono (app.request)',
    stopsReading: true,
    async run() {
      const { app } = honoApp(options);
      const { state, request } = streamedRequest('http://localhost/webhooks/chatbot');
      return fromResponse(await app.request(request), state);
    },
  },
  {
    name: 'fetch handler in Hono on @hono/node-server',
    stopsReading: false,
    async run() {
      const { app } = honoApp(options);
      const server = await new Promise<ServerType>((resolve) => {
        const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
      });
      try {
        return await postStreamed((server.address() as AddressInfo).port, '/webhooks/chatbot');
      } finally {
        (server as Server).closeAllConnections();
        server.close();
      }
    },
  },
];

describe.each(CASES)('a 10 MiB streamed body with a 1 MiB limit: $name', ({ run, stopsReading }) => {
  it('answers 413 payload_too_large before the body ends, without buffering it', async () => {
    const outcome = await run();
    expect({ status: outcome.status, code: outcome.code }).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    expect(outcome.producedAtAnswer).toBeLessThan(TOTAL);
    expect(outcome.peakAbove).toBeLessThan(20 * MiB);
    // The web stream is pulled on demand: the handler read the limit and one chunk past it, no more.
    if (stopsReading) expect(outcome.produced).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
  });
});
