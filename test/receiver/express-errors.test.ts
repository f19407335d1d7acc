import express from 'express';
import request from 'supertest';
import { createWebhookRouter, webhookErrorHandler, type CaptureRecord } from '../../src/index.js';
import { fixtures } from '../../src/testing/index.js';

/** An app whose express.json() runs before the router, with the library's error handler after it. */
function appWithParser(parser: express.RequestHandler, withReceiver = true) {
  const invalid: unknown[] = [];
  const calls: unknown[] = [];
  const router = createWebhookRouter({
    token: 's3cret',
    onChatbot: (event) => void calls.push(event),
    onInvalid: (info) => void invalid.push(info),
  });
  const app = express();
  app.use(parser);
  app.use('/webhooks', router);
  app.use('/webhooks', webhookErrorHandler(withReceiver ? router : undefined));
  // Errors elsewhere keep Express's own handling.
  app.post('/other', (_req, res) => void res.send('ok'));
  return { app, router, invalid, calls };
}

describe('webhookErrorHandler: express.json() failures answered with the library JSON', () => {
  it.each([
    ['bad JSON', express.json(), 'application/json', '{"eventId":', 400, 'invalid_json'],
    [
      'a body over the parser limit',
      express.json({ limit: 10 }),
      'application/json',
      JSON.stringify(fixtures.chatbot.v2.INCOMING),
      413,
      'payload_too_large',
    ],
    [
      'an unsupported charset',
      express.json(),
      'application/json; charset=latin1',
      '{}',
      415,
      'unsupported_media_type',
    ],
  ])(
    'answers %s with status %i and code %s, counted in stats()',
    async (_name, parser, type, body, status, code) => {
      const { app, router } = appWithParser(parser);
      const res = await request(app)
        .post('/webhooks/chatbot?token=s3cret')
        .set('content-type', type)
        .send(body);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ error: { code } });
      expect(router.stats().chatbot).toMatchObject({ received: 1, acked: 0 });
      const total = router.stats().total;
      expect(total.received).toBe(total.acked + total.invalid + total.rejected);
    },
  );

  // Issue 24 item 8: the same code as the router's own check when body-parser refuses a coding.
  it('answers an encoding express.json() cannot decode 415 unsupported_encoding, counted', async () => {
    const { app, router } = appWithParser(express.json());
    const res = await request(app)
      .post('/webhooks/chatbot?token=s3cret')
      .set('content-type', 'application/json')
      .set('content-encoding', 'x-made-up')
      .send(JSON.stringify(fixtures.chatbot.v2.INCOMING));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: { code: 'unsupported_encoding' } });
    expect(router.stats().chatbot).toMatchObject({ received: 1, rejected: 1 });
  });

  it('hands bad JSON to onInvalid, as without express.json()', async () => {
    const { app, invalid } = appWithParser(express.json());
    await request(app)
      .post('/webhooks/chatbot?token=s3cret')
      .set('content-type', 'application/json')
      .send('{"x":')
      .expect(400);
    expect(invalid).toHaveLength(1);
  });

  it('still answers 401 to a wrong token with bad JSON', async () => {
    const { app, invalid } = appWithParser(express.json());
    const res = await request(app)
      .post('/webhooks/chatbot?token=nope')
      .set('content-type', 'application/json')
      .send('{');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(invalid).toEqual([]);
  });

  // Regression: the handler answered bad JSON beside the seam, so the router's capture never saw it.
  it('captures bad JSON as the router captures it (token dropped), then answers 400', async () => {
    const records: CaptureRecord[] = [];
    const router = createWebhookRouter({ token: 's3cret', capture: (record) => void records.push(record) });
    const app = express();
    app.use(express.json());
    app.use('/webhooks', router);
    app.use('/webhooks', webhookErrorHandler(router));
    const res = await request(app)
      .post('/webhooks/chatbot')
      .set('x-webhook-token', 's3cret')
      .set('content-type', 'application/json')
      .send('{"x":');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ path: '/chatbot', type: 'chatbot', body: '{"x":' });
    expect(records[0]?.headers).not.toHaveProperty('x-webhook-token');
    expect(router.stats().chatbot).toMatchObject({ received: 1, invalid: 1 });
  });

  it('answers the JSON error without a receiver too', async () => {
    const { app } = appWithParser(express.json(), false);
    const res = await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .send('{');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('leaves errors on other paths to Express', async () => {
    const { app } = appWithParser(express.json());
    const res = await request(app).post('/other').set('content-type', 'application/json').send('{');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('passes on errors that are not a body parser’s', async () => {
    const handler = webhookErrorHandler();
    const app = express();
    app.use('/webhooks', (_req, _res, next) => next(new Error('boom')));
    app.use('/webhooks', handler);
    const res = await request(app).post('/webhooks/chatbot').send({});
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });
});
