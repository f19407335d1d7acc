/*
 * Snapshots: `emulator.snapshot()` is the whole state as JSON; `createEmulator({ state })`,
 * `restore()` and POST /_emulator/state take it back. A state mutated every way a test would
 * (configurations, users, chats, messages, sessions, rating widgets, the clock) goes through
 * JSON and back, and the restored emulator answers every read route as the original does, and
 * goes on from there as the original would. A bad snapshot is refused whole, naming its field.
 */
import request from 'supertest';
import {
  createEmulator,
  SnapshotError,
  type Emulator,
  type EmulatorSnapshot,
} from '../../src/emulator/index.js';
import { SEED, T0, WEBHOOK_API } from './harness.js';

const KEY = SEED.supervisorKey;
const CHAT = '/chat';
const customer = (n: number): string => `+2783444${String(n).padStart(4, '0')}`;

interface Mutated {
  readonly chats: string[];
  readonly gstIds: string[];
  readonly users: string[];
  readonly keys: string[];
}

/** Changes the state every way a test would, through the API and the triggers. */
async function mutate(emulator: Emulator): Promise<Mutated> {
  const api = () => request(emulator.listener);
  const ok = (response: request.Response): Record<string, unknown> => {
    expect(response.status).toBe(200);
    return response.body as Record<string, unknown>;
  };
  ok(
    await api()
      .post(WEBHOOK_API)
      .set('authorization', KEY)
      .send({ incomingMessageURL: '', chatbotWebhookURL: '', chatbotPayloadVersion: 'v2' }),
  );
  ok(
    await api()
      .post(WEBHOOK_API)
      .set('authorization', KEY)
      .send({ messagingNumberId: SEED.lite.id, statusUpdateURL: '' }),
  );
  const created = ok(
    await api()
      .post('/Messaging/api/v1/users')
      .set('authorization', KEY)
      .send({ email: 'carol@demo.test', firstName: 'Carol', liveChatRole: 'AGENT', agentChatLimit: 3 }),
  );
  const legacy = ok(
    await api()
      .post('/Messaging/SystemUsers')
      .set('authorization', KEY)
      .send({ email: 'dave@demo.test', apiKey: 'dave-key', password: 'secret', liveChatRole: 'AGENT' }),
  );
  ok(
    await api()
      .put('/Messaging/api/v1/users/availability')
      .set('authorization', SEED.agentKey)
      .send({ availabilityStatus: false }),
  );
  ok(
    await api()
      .delete(`/Messaging/api/v1/users/${String(created.id)}`)
      .set('authorization', KEY),
  );
  const chats: string[] = [];
  for (let n = 0; n < 6; n += 1) {
    chats.push(
      emulator.customerMessage({
        number: SEED.cloud.msisdn,
        from: customer(n),
        text: `m${n}`,
        username: `u${n}`,
      }).chatParticipantId,
    );
  }
  emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(0), text: 'again' });
  emulator.assignAgent({ chatParticipantId: chats[0] ?? '', userId: String(legacy.id) });
  emulator.assignAgent({ chatParticipantId: chats[1] ?? '', teamId: SEED.teams.support });
  ok(
    await api()
      .put(`${CHAT}/ChatParticipant/terminateChatParticipantChat`)
      .set('authorization', KEY)
      .send({ id: chats[0], conversationClosed: true, sendRatingWidget: true, subject: 'Refund' }),
  );
  ok(
    await api()
      .post(`${CHAT}/v2/ChatParticipant/${chats[2] ?? ''}/terminate`)
      .set('authorization', KEY),
  );
  ok(
    await api()
      .post(`${CHAT}/v2/ChatParticipant/${chats[2] ?? ''}/reopen`)
      .set('authorization', KEY),
  );
  ok(
    await api()
      .post(`${CHAT}/v2/ChatParticipant/${chats[3] ?? ''}/terminate`)
      .set('authorization', KEY),
  );
  const gstIds: string[] = [];
  for (const [n, voice] of [
    [1, true],
    [4, false],
    [7, false],
  ] as const) {
    const { message } = emulator.sendMessage({
      number: SEED.cloud.msisdn,
      to: customer(n),
      voice,
      template: { name: 'welcome' },
    });
    gstIds.push(message.gstId);
  }
  for (const status of ['SENT', 'DELIVERED', 'READ'] as const)
    emulator.updateMessageStatus({ gstId: gstIds[0] ?? '', status });
  emulator.updateMessageStatus({ gstId: gstIds[1] ?? '', status: 'SENT' });
  emulator.updateMessageStatus({ gstId: gstIds[1] ?? '', status: 'FAILED', errorCode: '131' });
  emulator.sessionChange({ number: SEED.lite.msisdn, statusType: 'connecting' });
  emulator.advanceClock(90_000);
  emulator.flagNumber({ number: SEED.lite.msisdn, durationMs: 3_600_000 });
  emulator.advanceClock(5_000);
  return { chats, gstIds, users: [String(created.id), String(legacy.id)], keys: ['dave-key'] };
}

/** What every read route answers (cursors aside: they are positions, not content). */
async function answers(emulator: Emulator, mutated: Mutated): Promise<Record<string, unknown>> {
  const get = async (path: string, key?: string): Promise<unknown> => {
    const call = request(emulator.listener).get(path);
    const response = key === undefined ? await call : await call.set('authorization', key);
    const body = response.body as Record<string, unknown>;
    const { nextCursor: _cursor, url: _url, ...rest } = body;
    return { status: response.status, body: Array.isArray(body) ? body : rest };
  };
  const paths: Record<string, [string, string?]> = {
    list: [`${WEBHOOK_API}/list?size=50`, KEY],
    default: [`${WEBHOOK_API}/getForCurrentLoginUser`, KEY],
    numbers: ['/Messaging/MessagingClientNumbers/getForCurrentLoginUser', KEY],
    me: ['/Messaging/api/v1/users/me', KEY],
    users: ['/Messaging/api/v1/users', KEY],
    usersPage: ['/Messaging/api/v1/users/page?size=50', KEY],
    credits: ['/Messaging/api/v1/users/me/credits', KEY],
    legacyMe: ['/Messaging/SystemUsers/getCurrentLoginSystemUser', 'dave-key'],
    clientUsers: ['/Messaging/SystemUsers/getCurrentClientUsers', KEY],
    usersForClient: ['/Messaging/SystemUsers/getUsersForClient?clientRef=demo&size=50', KEY],
    otherClient: ['/Messaging/api/v1/users', SEED.otherClientKey],
    deletedKey: ['/Messaging/api/v1/users/me', 'emu-not-a-key'],
    state: ['/_emulator/state'],
    clock: ['/_emulator/clock'],
    chats: ['/_emulator/chat-participants?limit=100'],
    openChats: ['/_emulator/chat-participants?open=true&order=desc'],
    closedChats: ['/_emulator/chat-participants?open=false'],
    messages: ['/_emulator/messages?limit=100'],
    failed: ['/_emulator/messages?status=FAILED'],
    widgets: ['/_emulator/rating-widgets'],
    liteConfig: [`/_emulator/numbers/${encodeURIComponent(SEED.lite.msisdn)}/webhook-config`],
    cloudConfig: [`/_emulator/numbers/${SEED.cloud.id}/webhook-config`],
    snapshot: ['/_emulator/snapshot'],
    view: ['/_emulator/inspector/view'],
  };
  for (const id of mutated.chats) {
    paths[`chat ${id}`] = [`${CHAT}/ChatParticipant?id=${id}`, KEY];
    paths[`control chat ${id}`] = [`/_emulator/chat-participants/${id}`];
  }
  for (const gstId of mutated.gstIds) paths[`message ${gstId}`] = [`/_emulator/messages/${gstId}`];
  const out: Record<string, unknown> = {};
  for (const [name, [path, key]] of Object.entries(paths)) out[name] = await get(path, key);
  // error bodies carry a fresh requestId each time
  return JSON.parse(JSON.stringify(out).replace(/"requestId":"[^"]+"/g, '"requestId":"…"')) as Record<
    string,
    unknown
  >;
}

/** What the original and a restored emulator do next: the same calls, the same outcomes. */
async function goOn(emulator: Emulator, mutated: Mutated): Promise<unknown[]> {
  const outcome = (run: () => unknown): unknown => {
    try {
      const result = run() as Record<string, unknown>;
      return {
        chatParticipantId: result.chatParticipantId,
        message: result.message,
        assigned: result.assigned,
      };
    } catch (error) {
      return { error: (error as { code?: string }).code };
    }
  };
  const api = () => request(emulator.listener);
  return [
    // the customer's open chat is found, the closed one's customer gets a new one
    typeof outcome(() =>
      emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(1), text: 'x' }),
    ),
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(1), text: 'x' })
      .chatParticipantId === mutated.chats[1],
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(3), text: 'x' })
      .chatParticipantId === mutated.chats[3],
    // the message state machine goes on where it was
    outcome(() => emulator.updateMessageStatus({ gstId: mutated.gstIds[0] ?? '', status: 'PLAYED' })),
    outcome(() => emulator.updateMessageStatus({ gstId: mutated.gstIds[1] ?? '', status: 'DELIVERED' })),
    // Dave is at one open chat of his limit 5; Ada is offline
    outcome(() =>
      emulator.assignAgent({ chatParticipantId: mutated.chats[4] ?? '', userId: SEED.users.ada }),
    ),
    outcome(() => emulator.assignAgent({ chatParticipantId: mutated.chats[4] ?? '' })),
    // the flag still holds the Lite number
    outcome(() => emulator.sessionChange({ number: SEED.lite.msisdn, statusType: 'connecting' })),
    // a reopen of chat 2's customer second chat is refused while chat 2 is open
    (
      await api()
        .post(`${CHAT}/v2/ChatParticipant/${mutated.chats[2] ?? ''}/reopen`)
        .set('authorization', KEY)
    ).status,
    // a second default is refused, the deleted user's e-mail is free again
    (await api().post(WEBHOOK_API).set('authorization', KEY).send({ incomingMessageURL: '' })).status,
    (await api().post('/Messaging/api/v1/users').set('authorization', KEY).send({ email: 'carol@demo.test' }))
      .status,
    (await api().post('/Messaging/api/v1/users').set('authorization', KEY).send({ email: 'dave@demo.test' }))
      .status,
  ];
}

describe('snapshots', () => {
  let original: Emulator;
  let mutated: Mutated;
  let snapshot: EmulatorSnapshot;
  beforeEach(async () => {
    original = createEmulator({ clock: T0, retry: { attempts: 1 } });
    mutated = await mutate(original);
    snapshot = JSON.parse(JSON.stringify(original.snapshot())) as EmulatorSnapshot;
  });
  afterEach(() => original.close());

  it('holds every kind of record and the clock, as plain JSON', () => {
    expect(snapshot).toMatchObject({ version: 1, clock: T0 + 95_000 });
    expect(snapshot.webhookConfigs).toHaveLength(2);
    expect(snapshot.users.map((u) => u.email)).toEqual(
      expect.arrayContaining(['carol@demo.test', 'dave@demo.test']),
    );
    expect(snapshot.users.find((u) => u.email === 'dave@demo.test')).toMatchObject({
      apiKey: 'dave-key',
      password: 'secret',
    });
    expect(snapshot.chatParticipants).toHaveLength(7);
    expect(snapshot.messages).toHaveLength(3);
    expect(snapshot.ratingWidgets).toHaveLength(1);
    expect(snapshot.numbers.find((n) => n.id === SEED.lite.linkId)?.session).toMatchObject({
      statusType: 'disconnected',
      flaggedUntil: T0 + 90_000 + 3_600_000,
    });
    expect(original.snapshot()).toEqual(snapshot);
  });

  it.each([
    [
      'createEmulator({ state })',
      (state: EmulatorSnapshot) => createEmulator({ state, retry: { attempts: 1 } }),
    ],
    [
      'restore() on a fresh emulator',
      (state: EmulatorSnapshot) => {
        const emulator = createEmulator({ seed: 'empty', clock: 0 });
        emulator.restore(state);
        return emulator;
      },
    ],
    [
      'POST /_emulator/state',
      async (state: EmulatorSnapshot) => {
        const emulator = createEmulator();
        const response = await request(emulator.listener).post('/_emulator/state').send(state);
        expect(response.status).toBe(200);
        return emulator;
      },
    ],
  ] as const)('%s: answers every route as the original, then goes on as it would', async (_, restore) => {
    const restored = await restore(snapshot);
    try {
      expect(await answers(restored, mutated)).toEqual(await answers(original, mutated));
      expect(restored.snapshot()).toEqual(snapshot);
      const next = await goOn(original, mutated);
      expect(await goOn(restored, mutated)).toEqual(next);
      // the same records afterwards (new ones have fresh random ids on each side)
      const sizes = (e: Emulator) =>
        Object.values(e.snapshot()).map((value) => (Array.isArray(value) ? value.length : value));
      expect(sizes(restored)).toEqual(sizes(original));
    } finally {
      await restored.close();
    }
  });

  it('reset() comes back to the snapshot the emulator started from', async () => {
    const restored = createEmulator({ state: snapshot });
    restored.customerMessage({ number: SEED.cloud.msisdn, from: customer(50), text: 'later' });
    restored.advanceClock(1000);
    restored.reset();
    expect(restored.snapshot()).toEqual(snapshot);
    await restored.close();
  });

  it.each([
    [{ ...{}, version: 2 }, 'version'],
    [{ version: 1, users: [{ id: 'u', clientId: 'c', clientRef: 'c', email: 'x@y' }] }, 'users.0.apiKey'],
    [
      {
        version: 1,
        clients: [{ id: 'c', clientRef: 'demo' }],
        teams: [{ id: 't', clientId: 'nope', clientRef: 'demo', name: 'T' }],
      },
      'teams.0.clientId',
    ],
  ] as const)('refuses a malformed snapshot, naming the field (%#)', (state, path) => {
    expect(() => createEmulator({ state: state as never })).toThrow(
      expect.objectContaining({ name: 'SnapshotError', path, message: expect.stringContaining(path) }),
    );
  });

  it('refuses a snapshot that breaks a rule of the state, and changes nothing', async () => {
    const broken = structuredClone(snapshot);
    // a second open chat for one customer on one number
    const open = broken.chatParticipants.find((c) => !c.conversationClosed);
    if (open === undefined) throw new Error('no open chat');
    broken.chatParticipants.push({ ...open, id: 'second-open-chat' });
    const before = original.snapshot();
    expect(() => original.restore(broken)).toThrow(SnapshotError);
    const response = await request(original.listener).post('/_emulator/state').send(broken);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'BAD_REQUEST',
      field: `chatParticipants.${broken.chatParticipants.length - 1}`,
      message: expect.stringMatching(/already has an open chat/),
    });
    // an API key used twice, a configuration on another client's number
    const twice = structuredClone(snapshot);
    twice.users.push({
      ...(twice.users[0] as EmulatorSnapshot['users'][number]),
      id: 'twin',
      email: 'twin@demo.test',
    });
    expect(() => original.restore(twice)).toThrow(/users\.\d+: apiKey of twin@demo.test is already used/);
    const foreign = structuredClone(snapshot);
    const config = foreign.webhookConfigs.find((c) => c.messagingNumberId !== null);
    if (config === undefined) throw new Error('no override');
    Object.assign(config, { messagingNumberId: SEED.foreign.id });
    expect(() => original.restore(foreign)).toThrow(
      /webhookConfigs\.1\.messagingNumberId: unknown messaging number/,
    );
    expect(original.snapshot()).toEqual(before);
  });
});
