/*
 * The client without a server: option validation, the request it builds (Authorization without
 * Bearer, JSON body, prefixes, escaping), and the errors for no response and for a body that
 * does not match the documented shape.
 */
import {
  createPlatformClient,
  PlatformError,
  PlatformHttpError,
  PlatformNetworkError,
  PlatformResponseValidationError,
  type FetchLike,
  type PlatformClientOptions,
} from '../../src/client/index.js';

interface Seen {
  url: string;
  init: RequestInit;
}

function stubFetch(status: number, body: unknown, seen: Seen[] = []): FetchLike {
  return async (url, init) => {
    seen.push({ url, init });
    const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
    return new Response(text === '' ? null : text, {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
}

const summary = {
  id: 'u1',
  name: 'A',
  email: 'a@x.test',
  role: 'CLIENT',
  liveChatRole: 'AGENT',
  avatar: null,
  availabilityStatus: true,
};

describe('createPlatformClient options', () => {
  it.each<[string, Partial<PlatformClientOptions>, RegExp]>([
    ['a relative baseUrl', { baseUrl: '/api' }, /baseUrl must be an absolute URL/],
    ['a non-http baseUrl', { baseUrl: 'ftp://x.test' }, /http\(s\)/],
    ['an empty apiKey', { apiKey: ' ' }, /apiKey must be a non-empty string/],
    [
      'a prefix without a leading slash',
      { messagingPrefix: 'api' },
      /messagingPrefix must be '' or start with '\/'/,
    ],
    ['a chat prefix without a leading slash', { chatPrefix: 'chat' }, /chatPrefix/],
  ])('throws a TypeError for %s', (_, override, message) => {
    expect(() => createPlatformClient({ baseUrl: 'http://x.test', apiKey: 'k', ...override })).toThrow(
      TypeError,
    );
    expect(() => createPlatformClient({ baseUrl: 'http://x.test', apiKey: 'k', ...override })).toThrow(
      message,
    );
  });
});

describe('requests', () => {
  it('sends the key as Authorization without Bearer, JSON bodies, and joins base URL and prefixes', async () => {
    const seen: Seen[] = [];
    const client = createPlatformClient({
      baseUrl: 'http://x.test/root/',
      apiKey: 'key-1',
      messagingPrefix: '/api/',
      fetch: stubFetch(200, [summary], seen),
    });
    await client.users.list();
    expect(seen[0]?.url).toBe('http://x.test/root/api/Messaging/api/v1/users');
    expect(seen[0]?.init.headers).toMatchObject({ authorization: 'key-1' });
    expect(seen[0]?.init.body).toBeUndefined();

    const created = { ...summary, temporaryPassword: 'Tmp-1' };
    const post: Seen[] = [];
    const poster = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: stubFetch(200, created, post),
    });
    await poster.users.create({ email: 'a@x.test' });
    expect(post[0]?.init).toMatchObject({
      method: 'POST',
      body: '{"email":"a@x.test"}',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('escapes ids in paths and puts the participant id and page in the query', async () => {
    const seen: Seen[] = [];
    const client = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: stubFetch(200, { id: 'a/b' }, seen),
    });
    await client.chatParticipants.terminate('a/b');
    await client.chatParticipants.get('a b');
    expect(seen.map((s) => s.url)).toEqual([
      'http://x.test/chat/v2/ChatParticipant/a%2Fb/terminate',
      'http://x.test/chat/ChatParticipant?id=a+b',
    ]);
  });
});

describe('failures', () => {
  it('no response is a PlatformNetworkError with status 0 and the cause', async () => {
    const cause = new TypeError('fetch failed');
    const client = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: async () => {
        throw cause;
      },
    });
    const error = await client.users.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
      cause,
      request: { method: 'GET', url: 'http://x.test/Messaging/api/v1/users/me' },
    });
  });

  it('a 2xx body that does not match the documented shape is a PlatformResponseValidationError', async () => {
    const client = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: stubFetch(200, [{ name: 'no id' }]),
    });
    const error = await client.users.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformResponseValidationError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', status: 200, body: [{ name: 'no id' }] });
    expect((error as PlatformResponseValidationError).issues[0]?.path).toEqual([0, 'id']);
  });

  it('an undocumented status is a PlatformHttpError; a non-JSON body is kept as text', async () => {
    const client = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: stubFetch(503, 'down for maintenance'),
    });
    const error = await client.users.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 503, body: 'down for maintenance' });
  });

  it('credential fields a server might add to a UserResponse are stripped, not passed on', async () => {
    const leaky = { id: 'u1', email: 'a@x.test', password: 'oops', apiKey: 'leak' };
    const client = createPlatformClient({
      baseUrl: 'http://x.test',
      apiKey: 'k',
      fetch: stubFetch(200, leaky),
    });
    const me = await client.users.me();
    expect(me).toEqual({ id: 'u1', email: 'a@x.test' });
  });
});
