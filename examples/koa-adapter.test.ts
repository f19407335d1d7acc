/**
 * The third-party adapter of docs/receiver.md ("Writing an adapter"), as a user would write it:
 * the docs block is examples/koa-adapter.ts verbatim, and real HTTP requests through a Koa app
 * get the answers every built-in adapter gives, with nothing in the adapter but the seam.
 *
 * Run: NODE_OPTIONS=--experimental-vm-modules npx jest examples/koa-adapter
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import type { CaptureRecord, IncomingMessage } from 'messaging-webhooks';
import { fixtures } from 'messaging-webhooks/testing';
import request from 'supertest';
import { koaWebhooks } from './koa-adapter.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const TOKEN = 'koa-secret';

/** A Koa app with the adapter under /webhooks and a route of its own after it. */
function koaApp(options: Partial<Parameters<typeof koaWebhooks>[0]> = {}) {
  const incoming: IncomingMessage[] = [];
  const webhooks = koaWebhooks({
    basePath: '/webhooks',
    token: TOKEN,
    onIncoming: (message) => {
      incoming.push(message);
    },
    ...options,
  });
  const app = new Koa();
  app.use(webhooks);
  app.use((ctx) => {
    ctx.body = 'the app itself';
  });
  return { server: app.callback(), webhooks, incoming };
}

it("docs/receiver.md's adapter is examples/koa-adapter.ts verbatim", () => {
  const example = read('examples/koa-adapter.ts');
  const begin = '// docs/receiver.md "Writing an adapter": begin\n';
  const block = example.slice(
    example.indexOf(begin) + begin.length,
    example.indexOf('// docs/receiver.md "Writing an adapter": end'),
  );
  const section = read('docs/receiver.md').split('## Writing an adapter')[1] ?? '';
  const docsBlock = /```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  expect(block.length).toBeGreaterThan(1000);
  expect(docsBlock).toBe(block);
});

describe('a Koa adapter over messaging-webhooks/adapter', () => {
  it('answers a valid event 200 and runs its callback', async () => {
    const { server, webhooks, incoming } = koaApp();
    const message = { ...fixtures.incoming.TEXT, gstId: 'koa-valid' };
    const res = await request(server)
      .post('/webhooks/incoming')
      .set('x-webhook-token', TOKEN)
      .send(message)
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    await webhooks.idle();
    expect(incoming.map((m) => m.gstId)).toEqual(['koa-valid']);
    await webhooks.close(1000);
  });

  it('answers bad JSON 400 with the JSON error body, and runs nothing', async () => {
    const { server, webhooks, incoming } = koaApp();
    const res = await request(server)
      .post('/webhooks/incoming')
      .set('x-webhook-token', TOKEN)
      .set('content-type', 'application/json')
      .send('{"gstId": ')
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ error: { code: 'invalid_json' } });
    await webhooks.idle();
    expect(incoming).toEqual([]);
    expect(webhooks.stats().incoming.invalid).toBe(1);
    await webhooks.close(1000);
  });

  it('deduplicates a redelivered event: both answered 200, the callback runs once', async () => {
    const { server, webhooks, incoming } = koaApp();
    const message = { ...fixtures.incoming.TEXT, gstId: 'koa-duplicate' };
    for (let i = 0; i < 2; i += 1) {
      await request(server)
        .post('/webhooks/incoming')
        .set('x-webhook-token', TOKEN)
        .send(message)
        .expect(200);
    }
    await webhooks.idle();
    expect(incoming.map((m) => m.gstId)).toEqual(['koa-duplicate']);
    expect(webhooks.stats().incoming).toMatchObject({ received: 2, duplicates: 1 });
    await webhooks.close(1000);
  });

  it('gets the head checks and the Content-Encoding check from the seam: 401 before the body, 415 for gzip', async () => {
    const { server, webhooks } = koaApp();
    const body = JSON.stringify(fixtures.incoming.TEXT);
    const wrongToken = await request(server)
      .post('/webhooks/incoming')
      .set('x-webhook-token', 'wrong')
      .set('content-type', 'application/json')
      .send(body)
      .expect(401);
    expect(wrongToken.body).toMatchObject({ error: { code: 'unauthorized' } });
    const gzipped = await request(server)
      .post('/webhooks/incoming')
      .set('x-webhook-token', TOKEN)
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send(gzipSync(body))
      .expect(415);
    expect(gzipped.body).toMatchObject({ error: { code: 'unsupported_encoding' } });
    await webhooks.close(1000);
  });

  it('gets capture from the seam: the raw body, the canonical path, no token header', async () => {
    const records: CaptureRecord[] = [];
    const { server, webhooks } = koaApp({ capture: (record) => records.push(record) });
    const body = JSON.stringify({ ...fixtures.incoming.TEXT, gstId: 'koa-capture' });
    await request(server)
      .post('/webhooks/incoming')
      .set('x-webhook-token', TOKEN)
      .set('content-type', 'application/json')
      .send(body)
      .expect(200);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ path: '/incoming', type: 'incoming', body });
    expect(records[0]?.headers).not.toHaveProperty('x-webhook-token');
    await webhooks.close(1000);
  });

  it('leaves paths outside its mount point to the rest of the app', async () => {
    const { server, webhooks } = koaApp();
    const res = await request(server).get('/webhooksX/incoming').expect(200);
    expect(res.text).toBe('the app itself');
    await webhooks.close(1000);
  });

  it("names the adapter in an option's error", () => {
    expect(() => koaWebhooks({ token: TOKEN, tokn: TOKEN } as Parameters<typeof koaWebhooks>[0])).toThrow(
      /koaWebhooks.*tokn/,
    );
  });
});
