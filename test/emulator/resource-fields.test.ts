/*
 * Every resource the emulator returns, walked against its field table in the interface
 * documentation (test/emulator/documented-fields.ts): each documented field present and of its
 * documented type. A plain `string` is a string, never null ('' when the record has none);
 * "string or null" may be null. The state is the bare one a load test makes: chats opened by
 * customer messages with no optional field set, a user with no live-chat role and no profile.
 *
 * One documented type is read, not only checked: ChatParticipant.assignedTo and lastAssignedAgent
 * are "object"; a chat with no agent has null there (the documentation gives no value for "no
 * agent", and an empty object would read as an agent).
 */
import request from 'supertest';
import { createDefaultSeed, createEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  CHAT_PARTICIPANT,
  CLIENT,
  departures,
  MESSAGE_RESPONSE,
  MESSAGING_NUMBER,
  NUMBER_ROW,
  PAGE,
  SYSTEM_USER,
  UNAUTHORIZED,
  USERS_FOR_CLIENT_PAGE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_CONFIGURATION_OPTIONAL,
} from './documented-fields.js';
import { SEED, T0, WEBHOOK_API } from './harness.js';

const KEY = SEED.supervisorKey;
const SU = '/Messaging/SystemUsers';
const BARE_USER = { clientRef: 'demo', email: 'bare@demo.test', apiKey: 'bare-key', liveChatRole: null };

let emulator: Emulator;
let chat: string;
let assigned: string;
beforeEach(() => {
  const seed = createDefaultSeed();
  emulator = createEmulator({
    seed: { ...seed, users: [...(seed.users ?? []), BARE_USER] },
    clock: T0,
    retry: { attempts: 1 },
  });
  chat = emulator.customerMessage({
    number: SEED.cloud.msisdn,
    from: '+27831230001',
    text: 'hi',
  }).chatParticipantId;
  assigned = emulator.customerMessage({
    number: SEED.cloud.msisdn,
    from: '+27831230002',
    text: 'hi',
  }).chatParticipantId;
  emulator.assignAgent({ chatParticipantId: assigned, userId: SEED.users.ada });
});
afterEach(() => emulator.close());

const api = () => request(emulator.listener);

/** A SystemUser and its nested Client. */
const systemUser = (value: unknown, path: string): string[] => [
  ...departures(SYSTEM_USER, value, path),
  ...departures(CLIENT, (value as { client?: unknown }).client, `${path}.client`),
];
/** A ChatParticipant; its agents as `agent` checks them when they are there. */
const chatParticipant =
  (agent?: (value: unknown, path: string) => string[]) =>
  (value: unknown, path: string): string[] => {
    const record = value as Record<string, unknown>;
    const agents = (['assignedTo', 'lastAssignedAgent'] as const).flatMap((field) =>
      record[field] === null || agent === undefined ? [] : agent(record[field], `${path}.${field}`),
    );
    const own = departures(CHAT_PARTICIPANT, value, path).filter(
      // "object" agents: null when there is none (see the header)
      (line) => !/\.(assignedTo|lastAssignedAgent): expected object, got null$/.test(line),
    );
    return [...own, ...agents];
  };
const each =
  (walk: (value: unknown, path: string) => string[]) =>
  (value: unknown, path: string): string[] =>
    Array.isArray(value)
      ? value.flatMap((item, i) => walk(item, `${path}.${i}`))
      : [`${path}: expected an array, got ${typeof value}`];
const page =
  (walkItem: (value: unknown, path: string) => string[], table = PAGE) =>
  (value: unknown, path: string): string[] => [
    ...departures(table, value, path),
    ...each(walkItem)((value as { content?: unknown }).content, `${path}.content`),
  ];
const configuration = (value: unknown, path: string): string[] =>
  departures(WEBHOOK_CONFIGURATION, value, path, WEBHOOK_CONFIGURATION_OPTIONAL);
const numberRow = (value: unknown, path: string): string[] => [
  ...departures(NUMBER_ROW, value, path),
  ...departures(
    MESSAGING_NUMBER,
    (value as { messagingNumber?: unknown }).messagingNumber,
    `${path}.messagingNumber`,
  ),
];

type Call = () => request.Test | Promise<request.Response>;
/** Each documented operation that returns a documented shape, and how to walk its answer. */
const RESOURCES: readonly [string, () => Call, (value: unknown, path: string) => string[]][] = [
  [
    'GET ChatParticipant: a chat no field was set on',
    () => () => api().get('/chat/ChatParticipant').query({ id: chat }).set('authorization', KEY),
    chatParticipant(),
  ],
  [
    'GET ChatParticipant: a chat with an agent',
    () => () => api().get('/chat/ChatParticipant').query({ id: assigned }).set('authorization', KEY),
    chatParticipant(),
  ],
  [
    'PUT terminateChatParticipantChat (deprecated): its echo, assignedTo a SystemUser',
    () => () =>
      api()
        .put('/chat/ChatParticipant/terminateChatParticipantChat')
        .set('authorization', KEY)
        .send({ id: assigned, assignedTo: { id: SEED.users.ada }, conversationClosed: true }),
    chatParticipant(systemUser),
  ],
  [
    'POST v2 terminate',
    () => () => api().post(`/chat/v2/ChatParticipant/${chat}/terminate`).set('authorization', KEY),
    chatParticipant(),
  ],
  [
    'GET SystemUsers/getCurrentLoginSystemUser: a user with no live-chat role and no profile',
    () => () => api().get(`${SU}/getCurrentLoginSystemUser`).set('authorization', BARE_USER.apiKey),
    systemUser,
  ],
  [
    'GET SystemUsers/getCurrentClientUsers',
    () => () => api().get(`${SU}/getCurrentClientUsers`).set('authorization', KEY),
    each(systemUser),
  ],
  [
    'GET SystemUsers/getUsersForClient',
    () => () => api().get(`${SU}/getUsersForClient`).query({ clientRef: 'demo' }).set('authorization', KEY),
    page(systemUser, USERS_FOR_CLIENT_PAGE),
  ],
  [
    'POST SystemUsers',
    () => () => api().post(SU).set('authorization', KEY).send({ email: 'made@demo.test' }),
    systemUser,
  ],
  [
    'PUT SystemUsers/changeAvailableStatus',
    () => () => api().put(`${SU}/changeAvailableStatus`).set('authorization', BARE_USER.apiKey),
    systemUser,
  ],
  [
    'POST MessagingClientWebHook',
    () => () => api().post(WEBHOOK_API).set('authorization', KEY).send({ incomingMessageURL: '' }),
    configuration,
  ],
  [
    'GET MessagingClientWebHook/list',
    () => async () => {
      await api()
        .post(WEBHOOK_API)
        .set('authorization', KEY)
        .send({ chatbotWebhookURL: 'https://bot.example', chatbotPayloadVersion: 'v2' });
      return api().get(`${WEBHOOK_API}/list`).set('authorization', KEY);
    },
    page(configuration),
  ],
  [
    'GET MessagingClientNumbers/getForCurrentLoginUser',
    () => () =>
      api().get('/Messaging/MessagingClientNumbers/getForCurrentLoginUser').set('authorization', KEY),
    page(numberRow),
  ],
  [
    'GET api/v1/users/page (the Page around it)',
    () => () => api().get('/Messaging/api/v1/users/page').set('authorization', KEY),
    (value, path) => departures(PAGE, value, path),
  ],
  [
    'POST SystemUsers/changePassword',
    () => () =>
      api()
        .post(`${SU}/changePassword`)
        .set('authorization', KEY)
        .send({ oldPassword: 'password', newPassword: 'n', confirmNewPassword: 'n' }),
    (value, path) => departures(MESSAGE_RESPONSE, value, path),
  ],
  [
    'the 401 of a documented endpoint',
    () => () => api().get(`${WEBHOOK_API}/list`),
    (value, path) => departures(UNAUTHORIZED, value, path),
  ],
];

describe('every resource the emulator returns, against its documented field table', () => {
  it.each(RESOURCES)('%s', async (_, prepare, walk) => {
    const response = await prepare()();
    expect(response.status).toBeLessThan(500);
    expect(walk(response.body, 'body')).toEqual([]);
  });

  it("sending a fetched chat back (merge rule 4) leaves its '' fields unset, as they were", async () => {
    const fetched = await api().get('/chat/ChatParticipant').query({ id: chat }).set('authorization', KEY);
    expect(fetched.body).toMatchObject({ username: '', team: '', email: '' });
    const before = { ...emulator.chatParticipant(chat) };
    const sent = await api()
      .put('/chat/ChatParticipant/terminateChatParticipantChat')
      .set('authorization', KEY)
      .send(fetched.body);
    expect(sent.status).toBe(200);
    expect(emulator.chatParticipant(chat)).toEqual(before);
    expect(before).toMatchObject({ username: null, team: null, email: null });
    // so the next event still omits the username (payloads omit what is unset)
    const { payloads } = emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: '+27831230001',
      text: 'x',
    });
    expect(payloads.incoming).not.toHaveProperty('username');
  });

  it('the walk finds a departure (so the tests above can fail)', () => {
    expect(departures(CHAT_PARTICIPANT, { ...emptyChat(), username: null }, 'body')).toEqual([
      'body.username: expected string, got null',
    ]);
    expect(departures(SYSTEM_USER, {}, 'u')).toContain('u.id: missing (string)');
  });
});

/** A ChatParticipant-shaped record that satisfies the table. */
function emptyChat(): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(CHAT_PARTICIPANT)) {
    sample[field] = type === 'boolean' ? false : type === 'object' ? {} : '';
  }
  return sample;
}
