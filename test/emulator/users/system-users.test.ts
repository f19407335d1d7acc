/*
 * The deprecated SystemUsers operations (section User management, deprecated operations):
 * credential-bearing SystemUser shapes with the password masked, the supervisor-only 403,
 * the getUsersForClient page shape, and "behaviour identical" to the api/v1 replacements.
 */
import {
  CLIENT_FIELDS,
  MASKED_PASSWORD,
  SYSTEM_USER_FIELDS,
  systemUserSchema,
  usersForClientPageSchema,
} from '../../../src/schemas/index.js';
import { IDS, KEYS, setup, SU, V1 } from './fixtures.js';

let ctx: ReturnType<typeof setup>;
beforeEach(() => {
  ctx = setup();
});

const call = (method: 'get' | 'post' | 'put', path: string, key: string = KEYS.supervisor, body?: object) =>
  ctx.api()[method](path).set('authorization', key).send(body);

describe('GET SystemUsers/getCurrentLoginSystemUser', () => {
  it('returns the caller as a SystemUser with every documented field, the password masked and the Client nested', async () => {
    const res = await call('get', `${SU}/getCurrentLoginSystemUser`, KEYS.ada);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...SYSTEM_USER_FIELDS].sort());
    expect(systemUserSchema.safeParse(res.body).success).toBe(true);
    expect(res.body).toMatchObject({
      id: IDS.ada,
      password: MASKED_PASSWORD,
      apiKey: KEYS.ada,
      tempPassword: null,
      clientRef: 'demo',
      client: { clientRef: 'demo', clientMessagingBalance: 100, headerKeyPairsJson: '[]' },
    });
    expect(Object.keys(res.body.client).sort()).toEqual([...CLIENT_FIELDS].sort());
    expect(JSON.stringify(res.body)).not.toContain('"password":"password"');
  });
});

describe('GET SystemUsers/getCurrentClientUsers (supervisor only)', () => {
  it.each([
    ['SUPERVISOR', KEYS.supervisor, 200],
    ['AGENT', KEYS.ada, 403],
    ['AGENT', KEYS.bob, 403],
  ])('a %s caller gets %#: %s', async (_, key, status) => {
    const res = await call('get', `${SU}/getCurrentClientUsers`, key);
    expect(res.status).toBe(status);
    if (status === 200) {
      expect((res.body as { id: string }[]).map((u) => u.id)).toEqual([IDS.supervisor, IDS.ada, IDS.bob]);
      for (const user of res.body as unknown[]) expect(user).toMatchObject({ password: MASKED_PASSWORD });
    } else {
      expect(res.body).toMatchObject({ status: 'ERROR', code: 'FORBIDDEN' });
    }
  });

  it('a caller whose liveChatRole is null is refused too', async () => {
    const ada = ctx.emulator.state.users.get(IDS.ada);
    if (ada !== undefined) ada.liveChatRole = null;
    expect((await call('get', `${SU}/getCurrentClientUsers`, KEYS.ada)).status).toBe(403);
  });
});

describe('GET SystemUsers/getUsersForClient', () => {
  it('answers exactly { content, totalElements, totalPages } with SystemUser rows', async () => {
    const res = await call('get', `${SU}/getUsersForClient?clientRef=demo&page=0&size=2`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['content', 'totalElements', 'totalPages']);
    expect(usersForClientPageSchema.safeParse(res.body).success).toBe(true);
    expect(res.body).toMatchObject({ totalElements: 3, totalPages: 2 });
    expect((res.body as { content: { id: string }[] }).content.map((u) => u.id)).toEqual([
      IDS.supervisor,
      IDS.ada,
    ]);
  });

  it.each([
    ['without clientRef', '', 400, 'clientRef'],
    ['for an unknown clientRef', '?clientRef=nope', 404, 'clientRef'],
    ["for another client's clientRef", '?clientRef=other', 403, 'clientRef'],
    ['with a bad size', '?clientRef=demo&size=0', 400, 'size'],
  ])('%s: %s', async (_, query, status, field) => {
    const res = await call('get', `${SU}/getUsersForClient${query}`);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ field });
  });
});

describe('POST and PUT SystemUsers (credential-bearing)', () => {
  it('creates with a given password and apiKey; the key works and the password is masked in the answer', async () => {
    const res = await call('post', SU, KEYS.supervisor, {
      email: 'legacy@demo.test',
      password: 'chosen',
      apiKey: 'legacy-key',
      liveChatRole: 'AGENT',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: 'legacy@demo.test',
      password: MASKED_PASSWORD,
      apiKey: 'legacy-key',
      tempPassword: null,
      initialPassword: false,
    });
    const change = await call('post', `${SU}/changePassword`, 'legacy-key', {
      oldPassword: 'chosen',
      newPassword: 'b',
      confirmNewPassword: 'b',
    });
    expect(change.status).toBe(200);
  });

  it('creates without a password: a temporary one is generated and returned as tempPassword', async () => {
    const res = await call('post', SU, KEYS.supervisor, { email: 'temp@demo.test' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      password: MASKED_PASSWORD,
      initialPassword: true,
      tempPassword: expect.stringMatching(/^Tmp-/),
    });
    expect(typeof res.body.apiKey).toBe('string');
    expect((await call('get', `${V1}/me`, res.body.apiKey as string)).status).toBe(200);
  });

  it('updating with the fetched object (masked password) leaves the password unchanged', async () => {
    const fetched = (await call('get', `${SU}/getCurrentLoginSystemUser`, KEYS.bob)).body as Record<
      string,
      unknown
    >;
    const res = await call('put', SU, KEYS.bob, { ...fetched, firstName: 'Bobby' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ firstName: 'Bobby', password: MASKED_PASSWORD });
    expect(ctx.emulator.state.users.get(IDS.bob)?.password).toBe('password');
  });

  it('updating with a new password and apiKey stores both', async () => {
    const res = await call('put', SU, KEYS.supervisor, {
      id: IDS.bob,
      password: 'fresh',
      apiKey: 'bob-new-key',
    });
    expect(res.status).toBe(200);
    expect(ctx.emulator.state.users.get(IDS.bob)).toMatchObject({ password: 'fresh', apiKey: 'bob-new-key' });
    expect((await call('get', `${V1}/me`, KEYS.bob)).status).toBe(401);
    expect((await call('get', `${V1}/me`, 'bob-new-key')).status).toBe(200);
  });

  it.each([
    [
      'create with an apiKey already used',
      'post',
      { email: 'dup@demo.test', apiKey: KEYS.ada },
      409,
      'apiKey',
    ],
    ['update to an apiKey already used', 'put', { id: IDS.bob, apiKey: KEYS.ada }, 409, 'apiKey'],
    ['create without email', 'post', { password: 'x' }, 400, 'email'],
    ['update of an unknown id', 'put', { id: 'ghost' }, 404, 'id'],
    ['update with an empty password', 'put', { id: IDS.bob, firstName: 'X', password: '' }, 400, 'password'],
    [
      'update to a used apiKey with other changes',
      'put',
      { id: IDS.bob, firstName: 'X', apiKey: KEYS.ada },
      409,
      'apiKey',
    ],
  ] as const)('%s: %s', async (_, method, body, status, field) => {
    const before = structuredClone([...ctx.emulator.state.users.values()]);
    const res = await call(method, SU, KEYS.supervisor, body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status: 'ERROR', field });
    expect([...ctx.emulator.state.users.values()]).toEqual(before);
  });
});

describe('PUT SystemUsers/changeAvailableStatus', () => {
  it('toggles availability and returns the credential-bearing SystemUser', async () => {
    const res = await call('put', `${SU}/changeAvailableStatus`, KEYS.ada);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: IDS.ada,
      availabilityStatus: false,
      apiKey: KEYS.ada,
      password: MASKED_PASSWORD,
    });
  });
});

describe('deprecated operations whose behaviour is identical to the replacement', () => {
  const pairs = [
    {
      name: 'updateAgentChatLimit',
      deprecated: ['put', `${SU}/updateAgentChatLimit`, { userId: IDS.bob, agentChatLimit: 4 }],
      current: ['put', `${V1}/agent-chat-limit`, { userId: IDS.bob, agentChatLimit: 4 }],
    },
    {
      name: 'changePassword',
      deprecated: [
        'post',
        `${SU}/changePassword`,
        { oldPassword: 'password', newPassword: 'z', confirmNewPassword: 'z' },
      ],
      current: [
        'post',
        `${V1}/me/password/change`,
        { oldPassword: 'password', newPassword: 'z', confirmNewPassword: 'z' },
      ],
    },
    {
      name: 'changePassword (mismatch)',
      deprecated: [
        'post',
        `${SU}/changePassword`,
        { oldPassword: 'password', newPassword: 'z', confirmNewPassword: 'y' },
      ],
      current: [
        'post',
        `${V1}/me/password/change`,
        { oldPassword: 'password', newPassword: 'z', confirmNewPassword: 'y' },
      ],
    },
    {
      name: 'getMessagingCreditsForCurrentLoginUser',
      deprecated: ['get', `${SU}/getMessagingCreditsForCurrentLoginUser`, undefined],
      current: ['get', `${V1}/me/credits`, undefined],
    },
  ] as const;

  it.each(pairs)('$name answers what its replacement answers', async ({ deprecated, current }) => {
    const a = await call(deprecated[0], deprecated[1], KEYS.bob, deprecated[2]);
    ctx = setup();
    const b = await call(current[0], current[1], KEYS.bob, current[2]);
    const strip = (body: Record<string, unknown>) => {
      const { requestId: _r, timestamp: _t, ...rest } = body;
      return rest;
    };
    expect(a.status).toBe(b.status);
    expect(strip(a.body)).toEqual(strip(b.body));
  });

  it.each([
    ['get', 'getCurrentLoginSystemUser'],
    ['get', 'getCurrentClientUsers'],
    ['get', 'getUsersForClient?clientRef=demo'],
    ['put', 'changeAvailableStatus'],
    ['put', 'updateAgentChatLimit'],
    ['post', 'changePassword'],
    ['get', 'getMessagingCreditsForCurrentLoginUser'],
  ] as const)('%s SystemUsers/%s without an API key is 401', async (method, path) => {
    const res = await ctx.api()[method](`${SU}/${path}`);
    expect(res.status).toBe(401);
  });
});
