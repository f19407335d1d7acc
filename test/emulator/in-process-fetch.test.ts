import { createEmulator, DEFAULT_API_KEYS, type Emulator } from '../../src/emulator/index.js';

/*
 * emulator.fetch answers as the listening emulator does, request for request: the same status,
 * content type and body (but the fresh requestId and timestamp of an error) for answers and for
 * each kind of refusal, with no port (the in-process emulator never listens).
 */

const KEY = DEFAULT_API_KEYS.supervisor;
const json = { 'content-type': 'application/json' };

/** [name, path, init]: requests whose answers must match. */
const REQUESTS: readonly (readonly [string, string, RequestInit])[] = [
  ['an operation', '/Messaging/api/v1/users/me', { headers: { authorization: KEY } }],
  ['a query', '/Messaging/api/v1/users/page?size=1&page=1', { headers: { authorization: KEY } }],
  [
    'a JSON body',
    '/Messaging/api/v1/users/availability',
    { method: 'PUT', headers: { authorization: KEY, ...json }, body: '{"availabilityStatus":true}' },
  ],
  ['no key: 401', '/Messaging/api/v1/users/me', {}],
  ['Bearer: 401', '/Messaging/api/v1/users/me', { headers: { authorization: `Bearer ${KEY}` } }],
  ['a bad query: 400', '/Messaging/api/v1/users/page?size=0', { headers: { authorization: KEY } }],
  [
    'invalid JSON: 400',
    '/Messaging/api/v1/users',
    { method: 'POST', headers: { authorization: KEY, ...json }, body: '{' },
  ],
  [
    'a body over 1 MiB: 413',
    '/Messaging/api/v1/users',
    {
      method: 'POST',
      headers: { authorization: KEY, ...json },
      body: JSON.stringify({ email: 'x'.repeat(1_100_000) }),
    },
  ],
  ['an unknown path: 404', '/Messaging/nope', { headers: { authorization: KEY } }],
  [
    'another method: 405',
    '/Messaging/api/v1/users/me',
    { method: 'DELETE', headers: { authorization: KEY } },
  ],
  ['HEAD: 405, no body', '/Messaging/api/v1/users/me', { method: 'HEAD', headers: { authorization: KEY } }],
  ['the control surface', '/_emulator/clock', {}],
  ['204, no body', '/_emulator/deliveries', { method: 'DELETE' }],
  [
    'a path parameter, URI-encoded',
    '/chat/v2/ChatParticipant/a%20b/terminate',
    { method: 'POST', headers: { authorization: KEY } },
  ],
];

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly body: unknown;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = text;
  if (text !== '') {
    const { requestId: _id, timestamp: _time, ...rest } = JSON.parse(text) as Record<string, unknown>;
    body = rest;
  }
  return { status: response.status, type: response.headers.get('content-type'), body };
}

let listening: Emulator;
let inProcess: Emulator;
let url: string;
beforeAll(async () => {
  listening = createEmulator({ clock: 0 });
  inProcess = createEmulator({ clock: 0 });
  url = await listening.listen(0);
});
afterAll(async () => {
  await Promise.all([listening.close(), inProcess.close()]);
});

it.each(REQUESTS)('%s: the same answer over HTTP and in process', async (_name, path, init) => {
  const overHttp = await answerOf(await fetch(`${url}${path}`, init));
  const inMemory = await answerOf(await inProcess.fetch(`http://emulator.local${path}`, init));
  expect(inMemory).toEqual(overHttp);
  expect(inProcess.url).toBeUndefined();
});

it('takes a Request or a URL, ignores the origin, and can be used again after close()', async () => {
  const viaRequest = await inProcess.fetch(
    new Request('http://anything.test/Messaging/api/v1/users/me', { headers: { authorization: KEY } }),
  );
  expect(viaRequest.status).toBe(200);
  const viaUrl = await inProcess.fetch(new URL('http://other.test/_emulator/clock'));
  expect(await viaUrl.json()).toEqual({ now: 0 });
  await inProcess.close();
  expect((await inProcess.fetch('http://emulator.local/_emulator/clock')).status).toBe(200);
});
