import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { webhookConfigSchema } from '../../src/schemas/index.js';
import { SEED, WEBHOOK_API } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const URL_A = 'https://hooks.example.com/a';

let emulator: Emulator;
beforeEach(() => {
  emulator = createEmulator({ retry: { attempts: 1 } });
});
afterEach(async () => {
  await emulator.close();
});

const api = () => request(emulator.listener);
const create = (body: unknown, key: string = SEED.supervisorKey) =>
  api()
    .post(WEBHOOK_API)
    .set('authorization', key)
    .send(body as object);

describe('401 on every documented endpoint without a known key', () => {
  const ENDPOINTS: readonly [method: 'get' | 'post' | 'put' | 'delete', path: string][] = [
    ['post', WEBHOOK_API],
    ['put', WEBHOOK_API],
    ['get', `${WEBHOOK_API}/getForCurrentLoginUser`],
    ['get', `${WEBHOOK_API}/list?page=0&size=10`],
    ['delete', `${WEBHOOK_API}/some-id`],
    ['get', '/Messaging/MessagingClientNumbers/getForCurrentLoginUser?searchString=82'],
  ];
  const HEADERS: readonly [name: string, value: string | undefined][] = [
    ['missing', undefined],
    ['unknown key', 'not-a-key'],
    ['Bearer prefix (the key is passed directly)', `Bearer ${SEED.supervisorKey}`],
  ];
  const cases = ENDPOINTS.flatMap(([method, path]) =>
    HEADERS.map(([what, value]) => ({ method, path, what, value })),
  );

  it.each(cases)(
    '$method $path with $what key: 401 with the documented body',
    async ({ method, path, value }) => {
      let req = api()[method](path);
      if (value !== undefined) req = req.set('authorization', value);
      const response = await req.send({});
      expect(response.status).toBe(401);
      expect(response.body).toEqual(
        expect.objectContaining({
          status: 'ERROR',
          message: expect.stringMatching(/unauthorized/i),
          requestId: expect.stringMatching(UUID),
          timestamp: expect.any(String),
        }),
      );
      expect(new Date(response.body.timestamp as string).toISOString()).toBe(response.body.timestamp);
    },
  );
});

describe('400 naming the field for a bad body', () => {
  const BAD: readonly { name: string; body: unknown; field: string }[] = [
    {
      name: 'chatbotPayloadVersion v3',
      body: { chatbotPayloadVersion: 'v3' },
      field: 'chatbotPayloadVersion',
    },
    {
      name: 'chatbotPayloadVersion a number',
      body: { chatbotPayloadVersion: 2 },
      field: 'chatbotPayloadVersion',
    },
    {
      name: 'URL without scheme',
      body: { incomingMessageURL: 'hooks.example.com' },
      field: 'incomingMessageURL',
    },
    { name: 'ftp URL', body: { statusUpdateURL: 'ftp://hooks.example.com' }, field: 'statusUpdateURL' },
    { name: 'URL a number', body: { sessionStatusURL: 42 }, field: 'sessionStatusURL' },
    { name: 'relative URL', body: { eventWebhookURL: '/hooks' }, field: 'eventWebhookURL' },
    { name: 'chatbot URL with spaces', body: { chatbotWebhookURL: 'not a url' }, field: 'chatbotWebhookURL' },
    { name: 'flag a string', body: { chatbotIncludeOutgoing: 'yes' }, field: 'chatbotIncludeOutgoing' },
    {
      name: 'flag a number',
      body: { chatbotStopOnAgentAssignment: 1 },
      field: 'chatbotStopOnAgentAssignment',
    },
    { name: 'messagingNumberId a number', body: { messagingNumberId: 7 }, field: 'messagingNumberId' },
    { name: 'an array body', body: [], field: 'body' },
  ];

  it.each(BAD)('create with $name', async ({ body, field }) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 'ERROR', code: 'BAD_REQUEST', field });
    expect(response.body.message).toContain(field);
  });

  it.each(BAD.filter((c) => c.field !== 'messagingNumberId' && c.field !== 'body'))(
    'update with $name',
    async ({ body, field }) => {
      const created = await create({ incomingMessageURL: URL_A });
      const response = await api()
        .put(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send({ id: created.body.id, ...(body as object) });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ field });
    },
  );

  it('update without id', async () => {
    const response = await api().put(WEBHOOK_API).set('authorization', SEED.supervisorKey).send({});
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'id' });
  });

  it('malformed JSON is a 400, not a crash', async () => {
    const response = await api()
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .set('content-type', 'application/json')
      .send('{"incomingMessageURL":');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 'ERROR', field: 'body' });
  });

  it('accepts the empty string, http and https URLs (localhost included), null and v1/v2/null versions', async () => {
    for (const [i, body] of [
      { incomingMessageURL: '', chatbotPayloadVersion: null },
      { incomingMessageURL: 'http://127.0.0.1:3000/hooks', chatbotPayloadVersion: 'v1' },
      { incomingMessageURL: 'https://hooks.example.com/x?token=1', chatbotPayloadVersion: 'v2' },
      { incomingMessageURL: null, chatbotWebhookURL: 'http://localhost/bot' },
    ].entries()) {
      emulator.reset();
      const response = await create(body);
      expect({ i, status: response.status }).toEqual({ i, status: 200 });
    }
  });
});

describe('create, update, get default, list, delete', () => {
  it('creates a default with documented defaults for omitted fields', async () => {
    const response = await create({ incomingMessageURL: URL_A });
    expect(response.status).toBe(200);
    expect(webhookConfigSchema.parse(response.body)).toEqual({
      id: expect.stringMatching(UUID),
      messagingNumberId: null,
      messagingNumberMsisdn: null,
      incomingMessageURL: URL_A,
      chatbotIncludeOutgoing: false,
      chatbotStopOnAgentAssignment: false,
      chatbotPayloadVersion: null,
    });
  });

  it('get default returns only the client default, and 404 when there is none', async () => {
    const missing = await api()
      .get(`${WEBHOOK_API}/getForCurrentLoginUser`)
      .set('authorization', SEED.supervisorKey);
    expect(missing.status).toBe(404);
    await create({ messagingNumberId: SEED.lite.id, incomingMessageURL: URL_A });
    const created = await create({ statusUpdateURL: URL_A });
    const response = await api()
      .get(`${WEBHOOK_API}/getForCurrentLoginUser`)
      .set('authorization', SEED.supervisorKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created.body);
  });

  it('update keeps fields it does not name, replaces those it does, and "" disables', async () => {
    const created = await create({
      incomingMessageURL: URL_A,
      statusUpdateURL: URL_A,
      chatbotPayloadVersion: 'v2',
    });
    const response = await api()
      .put(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ id: created.body.id, statusUpdateURL: '', chatbotIncludeOutgoing: true });
    expect(response.body).toMatchObject({
      incomingMessageURL: URL_A,
      statusUpdateURL: '',
      chatbotIncludeOutgoing: true,
      chatbotPayloadVersion: 'v2',
    });
    const back = await api()
      .put(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ id: created.body.id, chatbotPayloadVersion: null });
    expect(back.body).toMatchObject({ chatbotPayloadVersion: null });
  });

  it('a list row sent back unchanged as an update is accepted and changes nothing', async () => {
    await create({ messagingNumberId: SEED.lite.id, incomingMessageURL: URL_A, chatbotPayloadVersion: 'v2' });
    const list = await api().get(`${WEBHOOK_API}/list`).set('authorization', SEED.supervisorKey);
    const row = (list.body.content as Record<string, unknown>[])[0];
    const response = await api()
      .put(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send(row ?? {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(row);
  });

  it("update and delete of another client's configuration are 404", async () => {
    const created = await create({ incomingMessageURL: URL_A });
    const update = await api()
      .put(WEBHOOK_API)
      .set('authorization', SEED.otherClientKey)
      .send({ id: created.body.id, incomingMessageURL: '' });
    const del = await api()
      .delete(`${WEBHOOK_API}/${created.body.id as string}`)
      .set('authorization', SEED.otherClientKey);
    expect([update.status, del.status]).toEqual([404, 404]);
  });

  it('list pages the default first, then overrides ordered by phone number, with the documented row fields', async () => {
    await create({ messagingNumberId: SEED.cloud.id, incomingMessageURL: URL_A });
    await create({ messagingNumberId: SEED.lite.id, incomingMessageURL: URL_A });
    await create({ incomingMessageURL: URL_A });
    await create({ incomingMessageURL: URL_A }, SEED.otherClientKey);

    const all = await api().get(`${WEBHOOK_API}/list`).set('authorization', SEED.supervisorKey);
    expect(all.body).toMatchObject({ totalElements: 3, totalPages: 1, number: 0, size: 20 });
    expect(
      (all.body.content as Record<string, unknown>[]).map((row) => [
        row.messagingNumberId,
        row.messagingNumberMsisdn,
      ]),
    ).toEqual([
      [null, null],
      [SEED.lite.id, SEED.lite.msisdn],
      [SEED.cloud.id, SEED.cloud.msisdn],
    ]);
    for (const row of all.body.content as unknown[])
      expect(webhookConfigSchema.safeParse(row).success).toBe(true);

    const page1 = await api()
      .get(`${WEBHOOK_API}/list?page=1&size=2`)
      .set('authorization', SEED.supervisorKey);
    expect(page1.body).toMatchObject({ totalElements: 3, totalPages: 2, number: 1, size: 2 });
    expect((page1.body.content as Record<string, unknown>[]).map((row) => row.messagingNumberMsisdn)).toEqual(
      [SEED.cloud.msisdn],
    );
  });

  it.each(['page=-1', 'size=0', 'page=x', 'size=1.5'])(
    'list with %s is a 400 naming the parameter',
    async (query) => {
      const response = await api()
        .get(`${WEBHOOK_API}/list?${query}`)
        .set('authorization', SEED.supervisorKey);
      expect(response.status).toBe(400);
      expect(response.body.field).toBe(query.split('=')[0]);
    },
  );

  it('the client-number link id is refused as messagingNumberId (403 with a hint)', async () => {
    const response = await create({ messagingNumberId: SEED.lite.linkId, incomingMessageURL: URL_A });
    expect(response.status).toBe(403);
    expect(response.body.message).toMatch(/link id/);
  });

  it('delete answers 404 for an unknown id', async () => {
    const response = await api().delete(`${WEBHOOK_API}/nope`).set('authorization', SEED.supervisorKey);
    expect(response.status).toBe(404);
  });
});

describe('number lookup', () => {
  const LOOKUP = '/Messaging/MessagingClientNumbers/getForCurrentLoginUser';

  it.each([
    ['82000000', [SEED.lite.msisdn, SEED.cloud.msisdn]],
    ['0001', [SEED.lite.msisdn]],
    ['+2782', [SEED.lite.msisdn, SEED.cloud.msisdn]],
    ['2783', []],
    ['', [SEED.lite.msisdn, SEED.cloud.msisdn]],
  ])(
    'searchString %j matches part of the phone number of the caller client only',
    async (search, expected) => {
      const response = await api()
        .get(`${LOOKUP}?searchString=${encodeURIComponent(search)}`)
        .set('authorization', SEED.supervisorKey);
      expect(response.status).toBe(200);
      const rows = response.body.content as { id: string; messagingNumber: { number: string } }[];
      expect(rows.map((row) => row.messagingNumber.number)).toEqual(expected);
    },
  );

  it('rows carry the link id and the nested number id, and the nested id is the one that works', async () => {
    const response = await api().get(`${LOOKUP}?searchString=0001`).set('authorization', SEED.supervisorKey);
    expect(response.body.content).toEqual([
      {
        id: SEED.lite.linkId,
        messagingNumber: { id: SEED.lite.id, number: SEED.lite.msisdn, messagingProvider: 'Messaging' },
      },
    ]);
    const row = (response.body.content as { messagingNumber: { id: string } }[])[0];
    const created = await create({ messagingNumberId: row?.messagingNumber.id, incomingMessageURL: URL_A });
    expect(created.status).toBe(200);
  });
});

describe('prefixes', () => {
  it('serves the documented paths under messagingPrefix', async () => {
    const prefixed = createEmulator({ messagingPrefix: '/api' });
    const ok = await request(prefixed.listener)
      .get(`/api${WEBHOOK_API}/list`)
      .set('authorization', SEED.supervisorKey);
    const unprefixed = await request(prefixed.listener)
      .get(`${WEBHOOK_API}/list`)
      .set('authorization', SEED.supervisorKey);
    expect([ok.status, unprefixed.status]).toEqual([200, 404]);
    expect(unprefixed.body).toMatchObject({ status: 'ERROR', code: 'NOT_FOUND' });
  });

  it('rejects a prefix without a leading slash at construction', () => {
    expect(() => createEmulator({ messagingPrefix: 'api' })).toThrow(TypeError);
  });
});
