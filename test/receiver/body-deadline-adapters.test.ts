/**
 * Issue 16 gap 7 on the adapters that read their own bodies beside the node handler: a body that
 * stops arriving gets 408 request_timeout at `bodyTimeoutMs`, as JSON, and runs nothing. The
 * assertions are on the answers, not on how long they took.
 */
import Fastify from 'fastify';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFetchHandler } from '../../src/index.js';
import { webhooksPlugin } from '../../src/fastify/index.js';

const BODY_TIMEOUT_MS = 150;
const PARTIAL = '{"eventId":';

/** Sends the head and part of a body over a real socket, then nothing; resolves on the answer. */
function postPartially(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/webhooks/chatbot', method: 'POST', headers },
      (res) => {
        let body = '';
        res.on('data', (data: Buffer) => (body += data.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    req.flushHeaders();
    req.write(PARTIAL);
  });
}

describe('the Fastify plugin enforces bodyTimeoutMs', () => {
  it.each([
    ['a Content-Length larger than the body sent', { 'content-length': '500' }],
    ['a chunked body that stops', { 'transfer-encoding': 'chunked' }],
  ])('answers 408 request_timeout as JSON on %s', async (_name, extra) => {
    const calls: unknown[] = [];
    const app = Fastify();
    await app.register(webhooksPlugin, {
      prefix: '/webhooks',
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      onChatbot: (event) => void calls.push(event),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const answer = await postPartially(port, { 'content-type': 'application/json', ...extra });
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_timeout' } });
      expect(answer.headers.connection).toBe('close');
      expect(app.webhooks.stats().total).toMatchObject({ received: 1, rejected: 1, acked: 0 });
      expect(calls).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('the fetch handler enforces bodyTimeoutMs', () => {
  /** A body stream that sends a first chunk and then never another, nor its end. */
  const stalledBody = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(PARTIAL));
      },
    });

  it.each([
    ['a declared Content-Length', { 'content-length': '500' }],
    ['no Content-Length (streamed)', {}],
  ])('answers 408 request_timeout as JSON with %s', async (_name, extra) => {
    const calls: unknown[] = [];
    const handler = createFetchHandler({
      basePath: '/webhooks',
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      onChatbot: (event) => void calls.push(event),
    });
    const response = await handler(
      new Request('http://localhost/webhooks/chatbot', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...extra },
        body: stalledBody(),
        duplex: 'half',
      }),
    );
    expect(response.status).toBe(408);
    expect(await response.json()).toMatchObject({ error: { code: 'request_timeout' } });
    expect(response.headers.get('connection')).toBe('close');
    expect(handler.stats().total).toMatchObject({ received: 1, rejected: 1, acked: 0 });
    expect(calls).toEqual([]);
    await handler.close();
  });
});
