import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createNodeHandler, type NodeHandlerOptions } from '../../src/receiver/index.js';
import { fixtures } from '../../src/testing/index.js';

function listen(
  options: NodeHandlerOptions,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const server = createServer(createNodeHandler(options));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** Opens a POST, sends its headers and only part of the body; resolves with the response. */
function postPartially(
  port: number,
  path: string,
  headers: Record<string, string>,
  chunks: string[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers },
      (res: IncomingMessage) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
    // The request is deliberately never ended: an answer proves the handler did not wait for the body.
  });
}

describe('node:http handler', () => {
  it('serves the endpoints under basePath and 404s elsewhere', async () => {
    const calls: unknown[] = [];
    const handler = createNodeHandler({
      basePath: '/webhooks/',
      onStatus: (payload) => void calls.push(payload),
    });
    await request(handler).post('/webhooks/status').send(fixtures.status.READ).expect(200);
    await request(handler).post('/webhooks').send(fixtures.status.SENT).expect(200);
    await request(handler).post('/webhooks?source=test').send(fixtures.status.DELIVERED).expect(200);
    const outside = await request(handler).post('/elsewhere/status').send(fixtures.status.READ).expect(404);
    expect(outside.body.error.code).toBe('not_found');
    await request(handler).post('/webhooksX/status').send(fixtures.status.READ).expect(404);
    await handler.idle();
    expect(calls).toEqual([fixtures.status.READ, fixtures.status.SENT, fixtures.status.DELIVERED]);
  });

  it('answers 401 on a wrong token before the body is read', async () => {
    const { port, close } = await listen({ token: 'right', onStatus: () => undefined });
    const res = await postPartially(
      port,
      '/status',
      { 'content-type': 'application/json', 'content-length': '100000', 'x-webhook-token': 'wrong' },
      ['{"gst'],
    );
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('unauthorized');
    await close();
  });

  it('answers 413 as soon as a chunked body passes the limit, without buffering the rest', async () => {
    const { port, close } = await listen({ bodyLimit: 1024, onStatus: () => undefined });
    const res = await postPartially(
      port,
      '/status',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      ['[', 'x'.repeat(2000)],
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'payload_too_large', limit: 1024 });
    await close();
  });

  it('answers 413 from content-length alone', async () => {
    const { port, close } = await listen({ bodyLimit: 1024, onStatus: () => undefined });
    const res = await postPartially(
      port,
      '/status',
      { 'content-type': 'application/json', 'content-length': '5000' },
      ['{'],
    );
    expect(res.status).toBe(413);
    await close();
  });
});
