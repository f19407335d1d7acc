/*
 * User management api/v1 (section User management, credential-free operations; Change
 * password; Authentication points 3 and 4): one block per operation, an error-condition table,
 * and agent assignment respecting the availability and chat-limit values these operations set.
 */
import {
  CREDENTIAL_FIELDS,
  pageSchema,
  userCreatedResponseSchema,
  userResponseSchema,
  userSummarySchema,
} from '../../../src/schemas/index.js';
import { IDS, KEYS, setup, V1 } from './fixtures.js';

let ctx: ReturnType<typeof setup>;
beforeEach(() => {
  ctx = setup();
});

const as = (key: string) => ({
  get: (path: string) => ctx.api().get(`${V1}${path}`).set('authorization', key),
  post: (path: string, body?: object) => ctx.api().post(`${V1}${path}`).set('authorization', key).send(body),
  put: (path: string, body?: object) => ctx.api().put(`${V1}${path}`).set('authorization', key).send(body),
  delete: (path: string) => ctx.api().delete(`${V1}${path}`).set('authorization', key),
});
const supervisor = () => as(KEYS.supervisor);
const keyOf = (userId: string): string =>
  ctx.emulator.describe().users.find((u) => u.id === userId)?.apiKey ?? '';

describe('GET api/v1/users/me', () => {
  it("returns the caller's own profile as a credential-free UserResponse", async () => {
    const res = await as(KEYS.ada).get('/me');
    expect(res.status).toBe(200);
    expect(userResponseSchema.strict().safeParse(res.body).success).toBe(true);
    expect(res.body).toMatchObject({
      id: IDS.ada,
      email: 'agent@demo.test',
      clientRef: 'demo',
      liveChatRole: 'AGENT',
      agentChatLimit: 2,
      availabilityStatus: true,
      teamIds: [IDS.sales],
    });
  });
});

describe('GET api/v1/users', () => {
  it("lists the caller's client as UserSummary rows (id, name, email, role, liveChatRole, avatar, availability)", async () => {
    const res = await as(KEYS.bob).get('');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: IDS.supervisor,
        name: 'Sam Supervisor',
        email: 'supervisor@demo.test',
        role: 'CLIENT',
        liveChatRole: 'SUPERVISOR',
        avatar: null,
        availabilityStatus: true,
      },
      {
        id: IDS.ada,
        name: 'Ada Agent',
        email: 'agent@demo.test',
        role: 'CLIENT',
        liveChatRole: 'AGENT',
        avatar: null,
        availabilityStatus: true,
      },
      {
        id: IDS.bob,
        name: 'Bob Agent',
        email: 'bob@demo.test',
        role: 'CLIENT',
        liveChatRole: 'AGENT',
        avatar: null,
        availabilityStatus: true,
      },
    ]);
    for (const row of res.body as unknown[])
      expect(userSummarySchema.strict().safeParse(row).success).toBe(true);
  });
});

describe('POST api/v1/users', () => {
  it('creates a user without a password and returns a one-time temporary password', async () => {
    const res = await supervisor().post('', {
      email: 'new@demo.test',
      firstName: 'Nia',
      teamIds: [IDS.support],
    });
    expect(res.status).toBe(200);
    expect(userCreatedResponseSchema.strict().safeParse(res.body).success).toBe(true);
    const created = res.body as { id: string; temporaryPassword: string };
    expect(res.body).toMatchObject({
      email: 'new@demo.test',
      clientRef: 'demo',
      initialPassword: true,
      teamIds: [IDS.support],
    });
    expect(created.temporaryPassword).toMatch(/^Tmp-/);
    // returned once: no later read carries it
    const again = await as(keyOf(created.id)).get('/me');
    expect(again.body).not.toHaveProperty('temporaryPassword');
    // the user sets their own password at first login, with the temporary one as the old password
    const change = await as(keyOf(created.id)).post('/me/password/change', {
      oldPassword: created.temporaryPassword,
      newPassword: 'mine-now',
      confirmNewPassword: 'mine-now',
    });
    expect(change.status).toBe(200);
    expect((await as(keyOf(created.id)).get('/me')).body).toMatchObject({ initialPassword: false });
  });

  it.each([
    ['omitted: the client of the auth context', undefined],
    ['given: that client', 'demo'],
  ])('takes the client from clientRef (%s)', async (_, clientRef) => {
    const res = await supervisor().post('', {
      email: 'c@demo.test',
      ...(clientRef === undefined ? {} : { clientRef }),
    });
    expect(res.status).toBe(200);
    const stored = ctx.emulator.state.users.get((res.body as { id: string }).id);
    expect(stored?.clientId).toBe(ctx.emulator.describe().clients.find((c) => c.clientRef === 'demo')?.id);
  });
});

describe('PUT api/v1/users', () => {
  it('updates the user identified by id and returns UserResponse', async () => {
    const res = await supervisor().put('', {
      id: IDS.bob,
      firstName: 'Robert',
      avatar: 'https://a.test/b.png',
      agentChatLimit: 3,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: IDS.bob,
      firstName: 'Robert',
      avatar: 'https://a.test/b.png',
      agentChatLimit: 3,
    });
    expect(userResponseSchema.strict().safeParse(res.body).success).toBe(true);
  });
});

describe('DELETE api/v1/users/{id}', () => {
  it('soft-deletes: disabled, signed out (the API key stops working), removed from teams, record retained', async () => {
    const res = await supervisor().delete(`/${IDS.ada}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: IDS.ada, disabled: true, deleted: true, teamIds: [] });
    const record = ctx.emulator.state.users.get(IDS.ada);
    expect(record).toMatchObject({ email: 'agent@demo.test', disabled: true, deleted: true, teamIds: [] });
    expect((await as(KEYS.ada).get('/me')).status).toBe(401);
    const ids = ((await supervisor().get('')).body as { id: string }[]).map((u) => u.id);
    expect(ids).not.toContain(IDS.ada);
    expect((await supervisor().delete(`/${IDS.ada}`)).status).toBe(404);
  });
});

describe('GET api/v1/users/page', () => {
  it('returns a Page of UserResponse for the client, zero-based', async () => {
    const res = await supervisor().get('/page?page=1&size=2');
    expect(res.status).toBe(200);
    expect(pageSchema(userResponseSchema.strict()).safeParse(res.body).success).toBe(true);
    expect(res.body).toMatchObject({ totalElements: 3, totalPages: 2, number: 1, size: 2 });
    expect((res.body as { content: { id: string }[] }).content.map((u) => u.id)).toEqual([IDS.bob]);
  });
});

describe('PUT api/v1/users/availability', () => {
  it("toggles the caller's availabilityStatus, or sets the value given", async () => {
    expect((await as(KEYS.ada).put('/availability')).body).toMatchObject({
      id: IDS.ada,
      availabilityStatus: false,
    });
    expect((await as(KEYS.ada).put('/availability')).body).toMatchObject({ availabilityStatus: true });
    expect((await as(KEYS.ada).put('/availability', { availabilityStatus: true })).body).toMatchObject({
      availabilityStatus: true,
    });
    const viaQuery = await ctx
      .api()
      .put(`${V1}/availability?availabilityStatus=false`)
      .set('authorization', KEYS.ada);
    expect(viaQuery.body).toMatchObject({ availabilityStatus: false });
  });
});

describe('PUT api/v1/users/agent-chat-limit', () => {
  it('sets agentChatLimit of an agent of the client', async () => {
    const res = await supervisor().put('/agent-chat-limit', { userId: IDS.bob, agentChatLimit: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: IDS.bob, agentChatLimit: 7 });
    expect(ctx.emulator.state.users.get(IDS.bob)?.agentChatLimit).toBe(7);
  });
});

describe('POST api/v1/users/me/password/change', () => {
  it('changes the password; the old one stops working', async () => {
    const ok = await as(KEYS.ada).post('/me/password/change', {
      oldPassword: 'password',
      newPassword: 'n3w',
      confirmNewPassword: 'n3w',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    const again = await as(KEYS.ada).post('/me/password/change', {
      oldPassword: 'password',
      newPassword: 'x',
      confirmNewPassword: 'x',
    });
    expect(again.status).toBe(400);
  });

  it.each([
    [
      'a wrong old password',
      { oldPassword: 'nope', newPassword: 'a', confirmNewPassword: 'a' },
      'oldPassword',
      /incorrect/,
    ],
    [
      'a confirmation mismatch',
      { oldPassword: 'password', newPassword: 'a', confirmNewPassword: 'b' },
      'confirmNewPassword',
      /do not match/,
    ],
    [
      'a missing new password',
      { oldPassword: 'password', confirmNewPassword: 'b' },
      'newPassword',
      /newPassword/,
    ],
    [
      'a missing confirmation',
      { oldPassword: 'password', newPassword: 'a' },
      'confirmNewPassword',
      /confirmNewPassword/,
    ],
    [
      'an empty old password',
      { oldPassword: '', newPassword: 'a', confirmNewPassword: 'a' },
      'oldPassword',
      /oldPassword/,
    ],
  ])('answers a clear 400 for %s', async (_, body, field, message) => {
    const res = await as(KEYS.ada).post('/me/password/change', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'ERROR', code: 'BAD_REQUEST', field });
    expect((res.body as { message: string }).message).toMatch(message);
    expect(ctx.emulator.state.users.get(IDS.ada)?.password).toBe('password');
  });
});

describe('GET api/v1/users/me/credits', () => {
  it("returns the credit balance of the caller's client", async () => {
    const res = await as(KEYS.bob).get('/me/credits');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      clientRef: 'demo',
      clientMessagingBalance: 100,
      clientSMSBalance: 0,
      userInitiatedConversationBalance: 0,
      businessInitiatedConversationBalance: 0,
    });
  });
});

describe('api/v1 error conditions', () => {
  const cases: {
    name: string;
    send: () => ReturnType<ReturnType<typeof as>['get']>;
    status: number;
    field?: string;
    code?: string;
  }[] = [
    ...CREDENTIAL_FIELDS.map((field) => ({
      name: `create carrying the credential ${field}`,
      send: () => supervisor().post('', { email: 'x@demo.test', [field]: 'secret' }),
      status: 400,
      field,
    })),
    ...CREDENTIAL_FIELDS.map((field) => ({
      name: `update carrying the credential ${field}`,
      send: () => supervisor().put('', { id: IDS.bob, [field]: 'secret' }),
      status: 400,
      field,
    })),
    {
      name: 'create without email',
      send: () => supervisor().post('', { firstName: 'x' }),
      status: 400,
      field: 'email',
    },
    {
      name: 'create with a malformed email',
      send: () => supervisor().post('', { email: 'nope' }),
      status: 400,
      field: 'email',
    },
    {
      name: 'create with an unknown liveChatRole',
      send: () => supervisor().post('', { email: 'a@demo.test', liveChatRole: 'BOSS' }),
      status: 400,
      field: 'liveChatRole',
    },
    {
      name: 'create with a negative agentChatLimit',
      send: () => supervisor().post('', { email: 'a@demo.test', agentChatLimit: -1 }),
      status: 400,
      field: 'agentChatLimit',
    },
    {
      name: "create with another client's team",
      send: () => supervisor().post('', { email: 'a@demo.test', teamIds: ['nope'] }),
      status: 400,
      field: 'teamIds.0',
    },
    {
      name: 'create with an e-mail already used',
      send: () => supervisor().post('', { email: 'AGENT@demo.test' }),
      status: 409,
      field: 'email',
      code: 'CONFLICT',
    },
    {
      name: 'create for an unknown clientRef',
      send: () => supervisor().post('', { email: 'a@demo.test', clientRef: 'nope' }),
      status: 404,
      field: 'clientRef',
    },
    {
      name: "create for another client's clientRef",
      send: () => supervisor().post('', { email: 'a@demo.test', clientRef: 'other' }),
      status: 403,
      field: 'clientRef',
      code: 'FORBIDDEN',
    },
    {
      name: 'update without id',
      send: () => supervisor().put('', { firstName: 'x' }),
      status: 400,
      field: 'id',
    },
    {
      name: 'update of an unknown id',
      send: () => supervisor().put('', { id: 'ghost', firstName: 'x' }),
      status: 404,
    },
    {
      name: "update of another client's user",
      send: () => supervisor().put('', { id: IDS.olga, firstName: 'x' }),
      status: 404,
    },
    {
      name: "update to another user's e-mail",
      send: () => supervisor().put('', { id: IDS.bob, email: 'agent@demo.test' }),
      status: 409,
      field: 'email',
    },
    { name: 'delete of an unknown id', send: () => supervisor().delete('/ghost'), status: 404 },
    { name: "delete of another client's user", send: () => supervisor().delete(`/${IDS.olga}`), status: 404 },
    {
      name: 'page with a negative page',
      send: () => supervisor().get('/page?page=-1'),
      status: 400,
      field: 'page',
    },
    {
      name: "page of another client's clientRef",
      send: () => supervisor().get('/page?clientRef=other'),
      status: 403,
      field: 'clientRef',
    },
    {
      name: 'availability with a non-boolean',
      send: () => supervisor().put('/availability', { availabilityStatus: 'maybe' }),
      status: 400,
      field: 'availabilityStatus',
    },
    {
      name: 'agent-chat-limit without userId',
      send: () => supervisor().put('/agent-chat-limit', { agentChatLimit: 1 }),
      status: 400,
      field: 'userId',
    },
    {
      name: 'agent-chat-limit with a fractional limit',
      send: () => supervisor().put('/agent-chat-limit', { userId: IDS.bob, agentChatLimit: 1.5 }),
      status: 400,
      field: 'agentChatLimit',
    },
    {
      name: 'agent-chat-limit of an unknown user',
      send: () => supervisor().put('/agent-chat-limit', { userId: 'ghost', agentChatLimit: 1 }),
      status: 404,
      field: 'userId',
    },
    {
      name: "agent-chat-limit of another client's user",
      send: () => supervisor().put('/agent-chat-limit', { userId: IDS.olga, agentChatLimit: 1 }),
      status: 404,
      field: 'userId',
    },
    {
      name: 'agent-chat-limit for another clientRef',
      send: () =>
        supervisor().put('/agent-chat-limit', { userId: IDS.olga, agentChatLimit: 1, clientRef: 'other' }),
      status: 403,
      field: 'clientRef',
    },
    {
      name: 'a body that is not JSON',
      send: () => supervisor().put('').set('content-type', 'application/json').send('{'),
      status: 400,
      field: 'body',
    },
  ];

  it.each(cases)('$name: $status', async ({ send, status, field, code }) => {
    const before = structuredClone([...ctx.emulator.state.users.values()]);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({
      status: 'ERROR',
      message: expect.any(String),
      ...(field === undefined ? {} : { field }),
      ...(code === undefined ? {} : { code }),
    });
    expect([...ctx.emulator.state.users.values()]).toEqual(before);
  });

  it.each([
    ['GET', '/me'],
    ['GET', ''],
    ['POST', ''],
    ['PUT', ''],
    ['DELETE', `/${IDS.bob}`],
    ['GET', '/page'],
    ['PUT', '/availability'],
    ['PUT', '/agent-chat-limit'],
    ['POST', '/me/password/change'],
    ['GET', '/me/credits'],
  ])('%s api/v1/users%s without a known API key is 401', async (method, path) => {
    const agent = ctx.api();
    const send = agent[method.toLowerCase() as 'get'].bind(agent);
    const res = await send(`${V1}${path}`).set('authorization', 'Bearer emu-supervisor-key');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/nauthorized/) });
  });
});

describe('agent assignment respects what the user operations set', () => {
  function newChat(from: string): string {
    return ctx.emulator.customerMessage({ number: '+27820000001', from, text: 'hi' }).chatParticipantId;
  }

  it('an agent who toggled availability off is not assigned (409 when named, skipped otherwise)', async () => {
    await as(KEYS.ada).put('/availability', { availabilityStatus: false });
    await as(KEYS.bob).put('/availability', { availabilityStatus: false });
    const chat = newChat('+27839990001');
    expect(() => ctx.emulator.assignAgent({ chatParticipantId: chat, userId: IDS.ada })).toThrow(/offline/);
    const auto = ctx.emulator.assignAgent({ chatParticipantId: chat, teamId: IDS.sales });
    expect(auto).toMatchObject({ assigned: false, agentId: null });
    await as(KEYS.ada).put('/availability');
    expect(ctx.emulator.assignAgent({ chatParticipantId: chat, userId: IDS.ada })).toMatchObject({
      assigned: true,
    });
  });

  it('agentChatLimit set through the API caps concurrent chats', async () => {
    // Ada already holds the suite's open chat
    await supervisor().put('/agent-chat-limit', { userId: IDS.ada, agentChatLimit: 2 });
    const first = newChat('+27839990002');
    const second = newChat('+27839990003');
    ctx.emulator.assignAgent({ chatParticipantId: first, userId: IDS.ada });
    const refused = await ctx
      .api()
      .post('/_emulator/assign-agent')
      .send({ chatParticipantId: second, userId: IDS.ada });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'AGENT_UNAVAILABLE' });
    await supervisor().put('/agent-chat-limit', { userId: IDS.ada, agentChatLimit: 3 });
    expect(ctx.emulator.assignAgent({ chatParticipantId: second, userId: IDS.ada })).toMatchObject({
      assigned: true,
    });
  });

  it('a deleted user is never assigned', async () => {
    await supervisor().delete(`/${IDS.ada}`);
    const chat = newChat('+27839990004');
    expect(() => ctx.emulator.assignAgent({ chatParticipantId: chat, userId: IDS.ada })).toThrow(/disabled/);
  });
});
