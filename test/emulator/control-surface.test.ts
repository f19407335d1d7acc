import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { createRouter, type RouteRequest } from '../../src/emulator/http/router.js';
import { SEED, T0 } from './harness.js';

/*
 * The /_emulator control surface mirrors the JS methods; every error is a JSON body and no
 * input crashes the emulator.
 */

let emulator: Emulator;
beforeEach(() => {
  emulator = createEmulator({ retry: { attempts: 1 }, clock: T0 });
});
afterEach(async () => {
  await emulator.close();
});

const control = () => request(emulator.listener);
const CUSTOMER = '+27831119999';

describe('every trigger over HTTP', () => {
  it('drives a whole conversation: message, assignment, bot reply, outbound message and its status, session, event, clock', async () => {
    const message = await control()
      .post('/_emulator/customer-message')
      .send({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'hi' });
    expect(message.status).toBe(200);
    const chatParticipantId = message.body.chatParticipantId as string;

    const assign = await control()
      .post('/_emulator/assign-agent')
      .send({ chatParticipantId, userId: SEED.users.ada });
    expect(assign.body).toMatchObject({ assigned: true, agentId: SEED.users.ada });
    const unassign = await control().post('/_emulator/unassign-agent').send({ chatParticipantId });
    expect(unassign.status).toBe(200);
    const reply = await control()
      .post('/_emulator/bot-reply')
      .send({ chatParticipantId, messageText: 'hello' });
    expect(reply.status).toBe(200);

    const sent = await control()
      .post('/_emulator/messages')
      .send({ number: SEED.cloud.msisdn, to: CUSTOMER });
    expect(sent.body.message).toMatchObject({ status: 'ACCEPTED' });
    const gstId = sent.body.message.gstId as string;
    const progressed = await control().post(`/_emulator/messages/${gstId}/status`).send({ status: 'SENT' });
    expect(progressed.body.message).toMatchObject({ status: 'SENT' });
    expect((await control().get(`/_emulator/messages/${gstId}`)).body).toMatchObject({
      gstId,
      status: 'SENT',
    });

    const session = await control()
      .post('/_emulator/sessions')
      .send({ number: SEED.lite.msisdn, statusType: 'connecting' });
    expect(session.body).toMatchObject({ statusType: 'connecting', status: 'Connecting...' });
    const flag = await control()
      .post('/_emulator/flag-number')
      .send({ number: SEED.lite.msisdn, durationMs: 1000 });
    expect(flag.body).toMatchObject({ flaggedUntil: T0 + 1000 });
    const event = await control().post('/_emulator/partner-events').send({
      messagingNumber: SEED.lite.msisdn,
      eventType: 'USER_CHANGED_NUMBER',
      oldNumber: '1',
      newNumber: '2',
    });
    expect(event.status).toBe(200);

    expect((await control().post('/_emulator/clock/advance').send({ ms: 500 })).body).toEqual({
      now: T0 + 500,
    });
    expect(
      (
        await control()
          .post('/_emulator/clock')
          .send({ time: T0 + 10 })
      ).body,
    ).toEqual({ now: T0 + 10 });
    expect((await control().get('/_emulator/clock')).body).toEqual({ now: T0 + 10 });

    const participants = await control().get('/_emulator/chat-participants');
    expect((participants.body as { items: { id: string }[] }).items.map((p) => p.id)).toContain(
      chatParticipantId,
    );
    const participant = await control().get(`/_emulator/chat-participants/${chatParticipantId}`);
    expect(participant.body).toMatchObject({ lastAssignedAgent: SEED.users.ada, assignedTo: null });
  });

  it('GET /_emulator/numbers/:number/webhook-config shows the configuration scope resolution picks', async () => {
    const create = (body: object) =>
      control().post('/Messaging/MessagingClientWebHook').set('authorization', SEED.supervisorKey).send(body);
    expect(
      (await control().get(`/_emulator/numbers/${encodeURIComponent(SEED.lite.msisdn)}/webhook-config`))
        .status,
    ).toBe(404);
    const fallback = await create({ incomingMessageURL: 'https://default.example' });
    const override = await create({ messagingNumberId: SEED.lite.id, incomingMessageURL: '' });
    const lite = await control().get(
      `/_emulator/numbers/${encodeURIComponent(SEED.lite.msisdn)}/webhook-config`,
    );
    const cloud = await control().get(`/_emulator/numbers/${SEED.cloud.id}/webhook-config`);
    expect([lite.body.id, cloud.body.id]).toEqual([override.body.id, fallback.body.id]);
  });

  it('GET /_emulator/state returns the seed summary with API keys and both number ids', async () => {
    const response = await control().get('/_emulator/state');
    expect(response.body.users).toEqual(
      expect.arrayContaining([expect.objectContaining({ apiKey: SEED.supervisorKey, clientRef: 'demo' })]),
    );
    expect(response.body.numbers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: SEED.lite.linkId,
          messagingNumberId: SEED.lite.id,
          msisdn: SEED.lite.msisdn,
          kind: 'lite',
        }),
      ]),
    );
    const root = await control().get('/_emulator');
    expect(root.body.routes).toEqual(
      expect.arrayContaining([{ method: 'POST', path: '/_emulator/customer-message', auth: false }]),
    );
  });

  it('POST /_emulator/reset restores the seed, or loads one given', async () => {
    await control()
      .post('/Messaging/MessagingClientWebHook')
      .set('authorization', SEED.supervisorKey)
      .send({ incomingMessageURL: '' });
    const reset = await control()
      .post('/_emulator/reset')
      .send({
        seed: {
          clients: [{ clientRef: 'acme' }],
          users: [{ clientRef: 'acme', email: 'a@acme.test', apiKey: 'acme-key' }],
          numbers: [{ clientRef: 'acme', msisdn: '+15550001', kind: 'lite' }],
        },
      });
    expect(reset.status).toBe(200);
    expect(reset.body.users).toEqual([expect.objectContaining({ apiKey: 'acme-key' })]);
    const old = await control()
      .get('/Messaging/MessagingClientWebHook/list')
      .set('authorization', SEED.supervisorKey);
    expect(old.status).toBe(401);
    const list = await control()
      .get('/Messaging/MessagingClientWebHook/list')
      .set('authorization', 'acme-key');
    expect(list.body).toMatchObject({ totalElements: 0 });
    const bad = await control()
      .post('/_emulator/reset')
      .send({ seed: { users: [{ email: 'x' }] } });
    expect(bad.status).toBe(400);
  });
});

describe('bad input never crashes', () => {
  const ROUTES = [
    '/_emulator/customer-message',
    '/_emulator/bot-reply',
    '/_emulator/assign-agent',
    '/_emulator/unassign-agent',
    '/_emulator/messages',
    '/_emulator/messages/x/status',
    '/_emulator/sessions',
    '/_emulator/flag-number',
    '/_emulator/partner-events',
    '/_emulator/clock/advance',
    '/_emulator/clock',
    '/_emulator/faults',
  ];
  const BODIES: readonly [string, string][] = [
    ['an empty object', '{}'],
    ['an array', '[1,2]'],
    ['a string', '"text"'],
    ['wrong types', '{"number":1,"from":true,"chatParticipantId":[],"status":5,"ms":"x","fault":7}'],
    ['malformed JSON', '{"number":'],
  ];
  const cases = ROUTES.flatMap((path) => BODIES.map(([what, body]) => ({ path, what, body })));

  it.each(cases)('POST $path with $what: a 4xx JSON error body', async ({ path, body }) => {
    const response = await control().post(path).set('content-type', 'application/json').send(body);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body).toEqual(
      expect.objectContaining({
        status: 'ERROR',
        message: expect.any(String),
        requestId: expect.any(String),
      }),
    );
  });

  it('an unknown path is a JSON 404; a wrong method a JSON 405 listing the allowed ones', async () => {
    const missing = await control().get('/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'ERROR', code: 'NOT_FOUND' });
    const wrong = await control().patch('/_emulator/customer-message').send({});
    expect(wrong.status).toBe(405);
    expect(wrong.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', allowed: ['POST'] });
  });

  it('a body over 1 MB is a 413', async () => {
    const response = await control()
      .post('/_emulator/customer-message')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
  });

  it('a percent-encoding error in a path parameter is a 404, not a crash', async () => {
    const response = await control().get('/_emulator/messages/%E0%A4%A');
    expect(response.status).toBe(404);
  });
});

describe('router', () => {
  it('prefers literal segments to parameters, decodes parameters, lists methods on a 405 and rejects duplicates', async () => {
    const handler = ({ path, params }: RouteRequest) => ({ body: { path, params } });
    const custom = createEmulator({
      routeGroups: [
        (router) => {
          router.add({ method: 'GET', path: '/a/:id', auth: false, handler });
          router.add({ method: 'DELETE', path: '/a/:id', auth: false, handler });
          router.add({ method: 'GET', path: '/a/list', auth: false, handler });
          expect(() => router.add({ method: 'GET', path: '/a/:id', auth: false, handler })).toThrow(
            TypeError,
          );
        },
      ],
    });
    const literal = await request(custom.listener).get('/a/list/');
    expect(literal.body).toEqual({ path: '/a/list', params: {} });
    const param = await request(custom.listener).get('/a/x%20y');
    expect(param.body).toEqual({ path: '/a/x%20y', params: { id: 'x y' } });
    const deleted = await request(custom.listener).delete('/a/list');
    expect(deleted.body).toEqual({ path: '/a/list', params: { id: 'list' } });
    const wrong = await request(custom.listener).post('/a/list');
    expect(wrong.status).toBe(405);
    expect(wrong.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', allowed: ['GET', 'DELETE'] });
    const head = await request(custom.listener).head('/a/x');
    expect(head.status).toBe(405);
    await custom.close();
  });

  it('a route pattern Express cannot compile is refused when added', () => {
    const router = createRouter();
    expect(() => router.add({ method: 'GET', path: '/a/(', auth: false, handler: () => ({}) })).toThrow();
  });
});

describe('listen and close', () => {
  it('listen() resolves with a 127.0.0.1 URL on a free port; the API answers there', async () => {
    const url = await emulator.listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.url).toBe(url);
    const response = await fetch(`${url}/_emulator/clock`);
    expect(await response.json()).toEqual({ now: T0 });
    await emulator.close();
    expect(emulator.url).toBeUndefined();
  });
});

describe('raw requests', () => {
  it('a malformed request target is a JSON 400', async () => {
    const url = await emulator.listen();
    const { port } = new URL(url);
    const { request: rawRequest } = await import('node:http');
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = rawRequest({ host: '127.0.0.1', port, method: 'GET', path: 'http://[bad' }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ERROR', code: 'BAD_REQUEST' });
  });
});
