/*
 * Authentication point 7 across every non-deprecated operation: webhook configuration, number
 * lookup, api/v1 users, GET ChatParticipant and the v2 terminate/reopen. Every response body of
 * the emulator, and every result of the typed client's non-deprecated methods, is walked at any
 * depth for the nine credential field names and for any seeded API key value under any name.
 * The seed sets every credential, so a renderer that copied one through would be caught.
 */
import request from 'supertest';
import { createPlatformClient, type PlatformClient } from '../../../src/client/index.js';
import { createEmulator, type Emulator } from '../../../src/emulator/index.js';
import { CREDENTIAL_FIELDS, MASKED_PASSWORD } from '../../../src/schemas/index.js';
import { CHAT, findKeys, IDS, KEYS, seedWithEveryCredential, SU, T0, V1 } from './fixtures.js';

const HOOKS = '/Messaging/MessagingClientWebHook';
const LITE_NUMBER_ID = '00000000-0000-4000-8000-000000000041';

/** Every path at which a string value equals one of `secrets`, whatever its key. */
function findValues(value: unknown, secrets: ReadonlySet<string>, path = ''): string[] {
  if (typeof value === 'string') return secrets.has(value) ? [path.slice(0, -1) || '(root)'] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => findValues(item, secrets, `${path}${i}.`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => findValues(child, secrets, `${path}${key}.`));
}

function leaksOf(
  responses: readonly { readonly name: string; readonly body: unknown }[],
  apiKeys: ReadonlySet<string>,
): string[] {
  return responses.flatMap(({ name, body }) => [
    ...findKeys(body, CREDENTIAL_FIELDS).map((path) => `${name}: ${path}`),
    ...findValues(body, apiKeys).map((path) => `${name}: API key value at ${path}`),
  ]);
}

let emulator: Emulator;
let apiKeys: Set<string>;
beforeEach(() => {
  emulator = createEmulator({ seed: seedWithEveryCredential(), clock: T0, retry: { attempts: 1 } });
  apiKeys = new Set(emulator.describe().users.map((user) => user.apiKey));
});

describe('Authentication point 7: no non-deprecated operation returns a credential', () => {
  it('walks every non-deprecated emulator response at any depth (names and API key values)', async () => {
    const api = () => request.agent(emulator.listener);
    const sup = KEYS.supervisor;
    const responses: { name: string; status: number; body: unknown }[] = [];
    const record = async (name: string, pending: request.Test) => {
      const res = await pending;
      responses.push({ name, status: res.status, body: res.body });
      return res;
    };

    // webhook configuration and number lookup
    const hook = await record(
      'webhook create',
      api().post(HOOKS).set('authorization', sup).send({ incomingMessageURL: 'http://127.0.0.1:9/in' }),
    );
    const hookId = (hook.body as { id: string }).id;
    await record(
      'webhook update',
      api().put(HOOKS).set('authorization', sup).send({ id: hookId, statusUpdateURL: '' }),
    );
    await record('webhook default', api().get(`${HOOKS}/getForCurrentLoginUser`).set('authorization', sup));
    await record('webhook list', api().get(`${HOOKS}/list`).set('authorization', sup));
    await record('webhook delete', api().delete(`${HOOKS}/${hookId}`).set('authorization', sup));
    await record(
      'number lookup',
      api()
        .get('/Messaging/MessagingClientNumbers/getForCurrentLoginUser?searchString=0')
        .set('authorization', sup),
    );
    // live chat: GET and the v2 operations, on an assigned chat with sendRatingWidget (so the
    // agent moves to lastAssignedAgent), then reopened
    await record(
      'chat get',
      api().get(`${CHAT}/ChatParticipant?id=${IDS.openChat}`).set('authorization', sup),
    );
    await record(
      'chat v2 terminate',
      api().post(`${CHAT}/v2/ChatParticipant/${IDS.openChat}/terminate`).set('authorization', sup),
    );
    await record(
      'chat get (closed)',
      api().get(`${CHAT}/ChatParticipant?id=${IDS.openChat}`).set('authorization', sup),
    );
    await record(
      'chat v2 reopen',
      api().post(`${CHAT}/v2/ChatParticipant/${IDS.openChat}/reopen`).set('authorization', sup),
    );
    // api/v1 users
    await record('me', api().get(`${V1}/me`).set('authorization', sup));
    await record('list', api().get(V1).set('authorization', sup));
    await record('create', api().post(V1).set('authorization', sup).send({ email: 'n@demo.test' }));
    await record('update', api().put(V1).set('authorization', sup).send({ id: IDS.bob, lastName: 'B' }));
    await record('page', api().get(`${V1}/page?size=100`).set('authorization', sup));
    await record('availability', api().put(`${V1}/availability`).set('authorization', KEYS.ada));
    await record(
      'agent-chat-limit',
      api()
        .put(`${V1}/agent-chat-limit`)
        .set('authorization', sup)
        .send({ userId: IDS.ada, agentChatLimit: 3 }),
    );
    await record('credits', api().get(`${V1}/me/credits`).set('authorization', sup));
    await record('delete', api().delete(`${V1}/${IDS.bob}`).set('authorization', sup));
    // error bodies too
    await record(
      'chat get (unknown)',
      api().get(`${CHAT}/ChatParticipant?id=ghost`).set('authorization', sup),
    );
    await record(
      'chat v2 reopen (open)',
      api().post(`${CHAT}/v2/ChatParticipant/${IDS.openChat}/reopen`).set('authorization', sup),
    );
    await record('unauthorized', api().get(`${V1}/me`).set('authorization', 'nope'));

    expect(responses.map((r) => `${r.name} ${r.status}`)).toEqual([
      ...responses.slice(0, -3).map((r) => `${r.name} 200`),
      'chat get (unknown) 404',
      'chat v2 reopen (open) 409',
      'unauthorized 401',
    ]);
    expect(leaksOf(responses, apiKeys)).toEqual([]);
    // the assigned agent is still there, as a credential-free user record
    const closed = responses.find((r) => r.name === 'chat get (closed)')?.body as Record<string, unknown>;
    expect(closed.lastAssignedAgent).toMatchObject({ id: IDS.ada, email: 'agent@demo.test' });
    const opened = responses.find((r) => r.name === 'chat get')?.body as Record<string, unknown>;
    expect(opened.assignedTo).toMatchObject({ id: IDS.ada, email: 'agent@demo.test' });
  });

  it('walks every non-deprecated method of the typed client', async () => {
    const url = await emulator.listen(0);
    try {
      const clientFor = (apiKey: string): PlatformClient => createPlatformClient({ baseUrl: url, apiKey });
      const sup = clientFor(KEYS.supervisor);
      const results: { name: string; body: unknown }[] = [];
      const record = async <T>(name: string, pending: Promise<T>): Promise<T> => {
        const body = await pending;
        results.push({ name, body });
        return body;
      };
      const hook = await record(
        'webhooks.create',
        sup.webhooks.create({ messagingNumberId: LITE_NUMBER_ID }),
      );
      await record('webhooks.update', sup.webhooks.update({ id: hook.id, statusUpdateURL: '' }));
      await record('webhooks.create (default)', sup.webhooks.create({}));
      await record('webhooks.getDefault', sup.webhooks.getDefault());
      await record('webhooks.list', sup.webhooks.list());
      await record('webhooks.delete', sup.webhooks.delete(hook.id));
      await record('numbers.lookup', sup.numbers.lookup('0'));
      await record('chatParticipants.get', sup.chatParticipants.get(IDS.openChat));
      await record('chatParticipants.terminate', sup.chatParticipants.terminate(IDS.openChat));
      await record('chatParticipants.reopen', sup.chatParticipants.reopen(IDS.openChat));
      await record(
        'chatParticipants.setConversationClosed',
        sup.chatParticipants.setConversationClosed(IDS.openChat, true),
      );
      await record('users.me', sup.users.me());
      await record('users.list', sup.users.list());
      const created = await record('users.create', sup.users.create({ email: 'c@demo.test' }));
      await record('users.update', sup.users.update({ id: IDS.bob, lastName: 'B' }));
      await record('users.page', sup.users.page());
      await record('users.changeAvailability', clientFor(KEYS.ada).users.changeAvailability());
      await record(
        'users.setAgentChatLimit',
        sup.users.setAgentChatLimit({ userId: IDS.ada, agentChatLimit: 2 }),
      );
      await record('users.credits', sup.users.credits());
      await record('users.delete', sup.users.delete(created.id));
      expect(results).toHaveLength(20);
      expect(leaksOf(results, apiKeys)).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it('the walkers find what the deprecated operations return (so the tests above can fail)', async () => {
    const res = await request(emulator.listener)
      .get(`${SU}/getCurrentLoginSystemUser`)
      .set('authorization', KEYS.supervisor);
    expect(leaksOf([{ name: 'su', body: res.body }], apiKeys)).toEqual(
      expect.arrayContaining(['su: apiKey', 'su: client.smsPassword', 'su: API key value at apiKey']),
    );
    expect(findValues({ a: [{ b: { x: KEYS.ada } }] }, apiKeys)).toEqual(['a.0.b.x']);
  });
});

describe('the temporary password of an api/v1 user is returned once, at creation', () => {
  it('is masked like password in every deprecated operation afterwards', async () => {
    const api = () => request.agent(emulator.listener);
    const created = await api().post(V1).set('authorization', KEYS.supervisor).send({ email: 't@demo.test' });
    expect(created.status).toBe(200);
    const temporary = (created.body as { temporaryPassword: string }).temporaryPassword;
    expect(temporary).toMatch(/^Tmp-/);
    const reads = [
      await api().get(`${SU}/getCurrentClientUsers`).set('authorization', KEYS.supervisor),
      await api()
        .get(`${SU}/getUsersForClient?clientRef=demo&size=100`)
        .set('authorization', KEYS.supervisor),
      await api().get(`${V1}/page?size=100`).set('authorization', KEYS.supervisor),
    ];
    for (const res of reads) {
      expect(res.status).toBe(200);
      expect(findValues(res.body, new Set([temporary]))).toEqual([]);
    }
    const rows = (reads[0]?.body ?? []) as { email: string; tempPassword: unknown }[];
    expect(rows.find((row) => row.email === 't@demo.test')?.tempPassword).toBe(MASKED_PASSWORD);
  });

  it('sending the masked value back through the deprecated update keeps the temporary password', async () => {
    const api = () => request.agent(emulator.listener);
    const created = await api().post(V1).set('authorization', KEYS.supervisor).send({ email: 'u@demo.test' });
    const { id, temporaryPassword } = created.body as { id: string; temporaryPassword: string };
    const res = await api()
      .put(SU)
      .set('authorization', KEYS.supervisor)
      .send({ id, tempPassword: MASKED_PASSWORD, password: MASKED_PASSWORD });
    expect(res.status).toBe(200);
    expect(emulator.state.users.get(id)?.tempPassword).toBe(temporaryPassword);
  });
});
