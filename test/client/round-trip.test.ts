/*
 * The typed client against the emulator, twice: over real HTTP (emulator.listen(0) on
 * 127.0.0.1) and in process with no port (`emulator.fetch`, the emulator never listening). One
 * round trip per operation, a check that the table covers every client method, and the typed
 * errors for the documented failure statuses: both transports must answer alike.
 */
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  createPlatformClient,
  PlatformBadRequestError,
  PlatformConflictError,
  PlatformError,
  PlatformForbiddenError,
  PlatformNotFoundError,
  PlatformUnauthorizedError,
  type PlatformClient,
  type PlatformClientOptions,
} from '../../src/client/index.js';
import { createSuiteSeed, IDS, KEYS, T0 } from '../emulator/users/fixtures.js';

type Prefixes = Pick<PlatformClientOptions, 'messagingPrefix' | 'chatPrefix'>;

/** How a test reaches an emulator. */
interface Transport {
  /** Whether the emulator listens on a port. */
  readonly listens: boolean;
  /** A client of `target`; `url` is where it listens (undefined when it does not). */
  client(target: Emulator, url: string | undefined, apiKey: string, prefixes?: Prefixes): PlatformClient;
}

const TRANSPORTS: readonly (readonly [string, Transport])[] = [
  [
    'over HTTP',
    {
      listens: true,
      client: (_target, url, apiKey, prefixes = {}) =>
        createPlatformClient({ baseUrl: url ?? '', apiKey, ...prefixes }),
    },
  ],
  [
    'in process, no port (emulator.fetch)',
    {
      listens: false,
      client: (target, _url, apiKey, prefixes = {}) =>
        createPlatformClient({ baseUrl: 'http://emulator.local', apiKey, ...prefixes, fetch: target.fetch }),
    },
  ],
];

let emulator: Emulator;
let clientFor: (apiKey: string) => PlatformClient;
let supervisor: PlatformClient;

const LITE = { msisdn: '+27820000001', id: '00000000-0000-4000-8000-000000000041' };

interface Operation {
  readonly group: keyof PlatformClient;
  readonly method: string;
  readonly run: () => Promise<void>;
}

const operations: Operation[] = [
  {
    group: 'webhooks',
    method: 'create',
    async run() {
      const row = await supervisor.webhooks.create({
        messagingNumberId: LITE.id,
        incomingMessageURL: 'http://127.0.0.1:9/in',
      });
      expect(row).toMatchObject({
        messagingNumberId: LITE.id,
        messagingNumberMsisdn: LITE.msisdn,
        incomingMessageURL: 'http://127.0.0.1:9/in',
      });
      expect(emulator.webhookConfigFor(LITE.msisdn)?.id).toBe(row.id);
    },
  },
  {
    group: 'webhooks',
    method: 'update',
    async run() {
      const row = await supervisor.webhooks.create({ statusUpdateURL: 'http://127.0.0.1:9/s' });
      const updated = await supervisor.webhooks.update({
        id: row.id,
        statusUpdateURL: '',
        chatbotPayloadVersion: 'v2',
      });
      expect(updated).toMatchObject({
        id: row.id,
        statusUpdateURL: '',
        chatbotPayloadVersion: 'v2',
        messagingNumberId: null,
      });
    },
  },
  {
    group: 'webhooks',
    method: 'getDefault',
    async run() {
      const row = await supervisor.webhooks.create({ incomingMessageURL: 'http://127.0.0.1:9/d' });
      expect(await supervisor.webhooks.getDefault()).toEqual(row);
    },
  },
  {
    group: 'webhooks',
    method: 'list',
    async run() {
      const override = await supervisor.webhooks.create({ messagingNumberId: LITE.id });
      const fallback = await supervisor.webhooks.create({});
      const page = await supervisor.webhooks.list({ page: 0, size: 10 });
      expect(page.content.map((r) => r.id)).toEqual([fallback.id, override.id]);
      expect(page).toMatchObject({ totalElements: 2, totalPages: 1, number: 0, size: 10 });
    },
  },
  {
    group: 'webhooks',
    method: 'delete',
    async run() {
      const row = await supervisor.webhooks.create({});
      await expect(supervisor.webhooks.delete(row.id)).resolves.toBeUndefined();
      expect((await supervisor.webhooks.list()).content).toEqual([]);
    },
  },
  {
    group: 'numbers',
    method: 'lookup',
    async run() {
      const page = await supervisor.numbers.lookup('0001');
      expect(page.content).toEqual([
        {
          id: '00000000-0000-4000-8000-000000000031',
          messagingNumber: { id: LITE.id, number: LITE.msisdn, messagingProvider: 'Messaging' },
        },
      ]);
    },
  },
  {
    group: 'users',
    method: 'me',
    async run() {
      expect(await clientFor(KEYS.ada).users.me()).toMatchObject({ id: IDS.ada, email: 'agent@demo.test' });
    },
  },
  {
    group: 'users',
    method: 'list',
    async run() {
      const rows = await supervisor.users.list();
      expect(rows.map((r) => r.name)).toEqual(['Sam Supervisor', 'Ada Agent', 'Bob Agent']);
    },
  },
  {
    group: 'users',
    method: 'create',
    async run() {
      const created = await supervisor.users.create({ email: 'client-made@demo.test', firstName: 'Cli' });
      expect(created.temporaryPassword).toMatch(/^Tmp-/);
      expect(created).toMatchObject({ email: 'client-made@demo.test', initialPassword: true });
    },
  },
  {
    group: 'users',
    method: 'update',
    async run() {
      expect(await supervisor.users.update({ id: IDS.bob, lastName: 'Builder' })).toMatchObject({
        id: IDS.bob,
        lastName: 'Builder',
      });
    },
  },
  {
    group: 'users',
    method: 'delete',
    async run() {
      expect(await supervisor.users.delete(IDS.bob)).toMatchObject({
        id: IDS.bob,
        deleted: true,
        disabled: true,
      });
      await expect(clientFor(KEYS.bob).users.me()).rejects.toBeInstanceOf(PlatformUnauthorizedError);
    },
  },
  {
    group: 'users',
    method: 'page',
    async run() {
      const page = await supervisor.users.page({ page: 0, size: 2, clientRef: 'demo' });
      expect(page).toMatchObject({ totalElements: 3, totalPages: 2, number: 0, size: 2 });
      expect(page.content).toHaveLength(2);
    },
  },
  {
    group: 'users',
    method: 'changeAvailability',
    async run() {
      const ada = clientFor(KEYS.ada);
      expect(await ada.users.changeAvailability()).toMatchObject({ availabilityStatus: false });
      expect(await ada.users.changeAvailability({ availabilityStatus: true })).toMatchObject({
        availabilityStatus: true,
      });
    },
  },
  {
    group: 'users',
    method: 'setAgentChatLimit',
    async run() {
      expect(await supervisor.users.setAgentChatLimit({ userId: IDS.ada, agentChatLimit: 9 })).toMatchObject({
        agentChatLimit: 9,
      });
    },
  },
  {
    group: 'users',
    method: 'changePassword',
    async run() {
      const ada = clientFor(KEYS.ada);
      expect(
        await ada.users.changePassword({
          oldPassword: 'password',
          newPassword: 'n',
          confirmNewPassword: 'n',
        }),
      ).toEqual({
        message: expect.any(String),
      });
      const wrong = ada.users.changePassword({
        oldPassword: 'password',
        newPassword: 'n',
        confirmNewPassword: 'n',
      });
      await expect(wrong).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        status: 400,
        body: { field: 'oldPassword' },
      });
    },
  },
  {
    group: 'users',
    method: 'credits',
    async run() {
      expect(await supervisor.users.credits()).toMatchObject({
        clientRef: 'demo',
        clientMessagingBalance: 100,
      });
    },
  },
  {
    group: 'systemUsers',
    method: 'create',
    async run() {
      const user = await supervisor.systemUsers.create({
        email: 'old@demo.test',
        password: 'pw',
        apiKey: 'old-key',
      });
      expect(user).toMatchObject({ email: 'old@demo.test', password: '********', apiKey: 'old-key' });
      expect(await clientFor('old-key').users.me()).toMatchObject({ id: user.id });
    },
  },
  {
    group: 'systemUsers',
    method: 'update',
    async run() {
      const bob = await clientFor(KEYS.bob).systemUsers.getCurrentLoginSystemUser();
      const updated = await supervisor.systemUsers.update({ ...bob, firstName: 'Roberto' });
      expect(updated).toMatchObject({ firstName: 'Roberto', apiKey: KEYS.bob });
    },
  },
  {
    group: 'systemUsers',
    method: 'getCurrentLoginSystemUser',
    async run() {
      const me = await clientFor(KEYS.ada).systemUsers.getCurrentLoginSystemUser();
      expect(me).toMatchObject({
        id: IDS.ada,
        apiKey: KEYS.ada,
        password: '********',
        client: { clientRef: 'demo' },
      });
    },
  },
  {
    group: 'systemUsers',
    method: 'getCurrentClientUsers',
    async run() {
      expect(await supervisor.systemUsers.getCurrentClientUsers()).toHaveLength(3);
      await expect(clientFor(KEYS.ada).systemUsers.getCurrentClientUsers()).rejects.toBeInstanceOf(
        PlatformForbiddenError,
      );
    },
  },
  {
    group: 'systemUsers',
    method: 'getUsersForClient',
    async run() {
      const page = await supervisor.systemUsers.getUsersForClient({ clientRef: 'demo', page: 1, size: 2 });
      expect(page).toMatchObject({ totalElements: 3, totalPages: 2 });
      expect(page.content.map((u) => u.id)).toEqual([IDS.bob]);
    },
  },
  {
    group: 'systemUsers',
    method: 'changeAvailableStatus',
    async run() {
      expect(await clientFor(KEYS.bob).systemUsers.changeAvailableStatus()).toMatchObject({
        id: IDS.bob,
        availabilityStatus: false,
      });
    },
  },
  {
    group: 'systemUsers',
    method: 'updateAgentChatLimit',
    async run() {
      expect(
        await supervisor.systemUsers.updateAgentChatLimit({ userId: IDS.bob, agentChatLimit: 4 }),
      ).toMatchObject({ agentChatLimit: 4 });
    },
  },
  {
    group: 'systemUsers',
    method: 'changePassword',
    async run() {
      const res = await clientFor(KEYS.bob).systemUsers.changePassword({
        oldPassword: 'password',
        newPassword: 'b',
        confirmNewPassword: 'b',
      });
      expect(res.message).toEqual(expect.any(String));
    },
  },
  {
    group: 'systemUsers',
    method: 'getMessagingCreditsForCurrentLoginUser',
    async run() {
      expect(await supervisor.systemUsers.getMessagingCreditsForCurrentLoginUser()).toMatchObject({
        clientMessagingBalance: 100,
      });
    },
  },
  {
    group: 'chatParticipants',
    method: 'get',
    async run() {
      const chat = await supervisor.chatParticipants.get(IDS.openChat);
      expect(chat).toMatchObject({
        id: IDS.openChat,
        assignedTo: { id: IDS.ada },
        conversationClosed: false,
      });
    },
  },
  {
    group: 'chatParticipants',
    method: 'terminateChatParticipantChat',
    async run() {
      // rule 3 through the client: a bare body reopens and clears every flag
      const chat = await supervisor.chatParticipants.terminateChatParticipantChat({ id: IDS.closedChat });
      expect(chat).toMatchObject({ conversationClosed: false, assignedTo: null, chatBotConversation: false });
    },
  },
  {
    group: 'chatParticipants',
    method: 'setConversationClosed',
    async run() {
      const before = await supervisor.chatParticipants.get(IDS.openChat);
      const after = await supervisor.chatParticipants.setConversationClosed(IDS.openChat, true, {
        sendRatingWidget: false,
      });
      expect(after).toEqual({
        ...before,
        conversationClosed: true,
        sendRatingWidget: false,
        terminatedBy: 'supervisor@demo.test',
      });
    },
  },
  {
    group: 'chatParticipants',
    method: 'terminate',
    async run() {
      const chat = await clientFor(KEYS.ada).chatParticipants.terminate(IDS.openChat);
      expect(chat).toMatchObject({
        conversationClosed: true,
        terminatedBy: 'agent@demo.test',
        expectingRating: true,
        lastAssignedAgent: { id: IDS.ada },
      });
      expect(emulator.state.ratingWidgets.size).toBe(1);
    },
  },
  {
    group: 'chatParticipants',
    method: 'reopen',
    async run() {
      const chat = await clientFor(KEYS.ada).chatParticipants.reopen(IDS.closedChat);
      expect(chat).toMatchObject({ conversationClosed: false, openedBy: 'agent@demo.test' });
      await expect(supervisor.chatParticipants.reopen(IDS.closedChat)).rejects.toMatchObject({
        status: 409,
        body: { code: 'ILLEGAL_TRANSITION' },
      });
    },
  },
  {
    group: 'agentMessages',
    method: 'send',
    async run() {
      const sent = await clientFor(KEYS.ada).agentMessages.send({
        chatParticipantId: IDS.openChat,
        channel: 'MESSAGING',
        text: 'On its way',
      });
      expect(sent).toMatchObject({
        chatParticipantId: IDS.openChat,
        text: 'On its way',
        sentBy: { id: IDS.ada },
      });
      expect(emulator.message(sent.id)?.agentMessage?.text).toBe('On its way');
      await expect(
        supervisor.agentMessages.send({ chatParticipantId: IDS.closedChat, channel: 'MESSAGING', text: 'x' }),
      ).rejects.toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    },
  },
  {
    group: 'agentMessages',
    method: 'uploadMedia',
    async run() {
      const data = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
      const { mediaUrl } = await supervisor.agentMessages.uploadMedia({ data, fileName: 'dot.png' });
      const served = await emulator.fetch(mediaUrl);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect([...new Uint8Array(await served.arrayBuffer())]).toEqual([1, 2, 3]);
    },
  },
];

describe.each(TRANSPORTS)('%s', (_name, transport) => {
  let url: string | undefined;

  beforeAll(async () => {
    emulator = createEmulator({ seed: createSuiteSeed(), clock: T0, retry: { attempts: 1 } });
    url = transport.listens ? await emulator.listen(0) : undefined;
    clientFor = (apiKey) => transport.client(emulator, url, apiKey);
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(() => {
    emulator.reset();
    supervisor = clientFor(KEYS.supervisor);
  });

  describe('client ↔ emulator round trip', () => {
    it.each(operations.map((op) => [`${op.group}.${op.method}`, op] as const))('%s', async (_, op) => {
      await op.run();
    });

    it('the table covers every method of the client', () => {
      const client = clientFor(KEYS.supervisor);
      const methods = Object.entries(client).flatMap(([group, api]) =>
        Object.keys(api as object).map((m) => `${group}.${m}`),
      );
      expect(operations.map((op) => `${op.group}.${op.method}`).sort()).toEqual(methods.sort());
    });

    it('honours messagingPrefix and chatPrefix', async () => {
      const prefixed = createEmulator({
        seed: createSuiteSeed(),
        messagingPrefix: '/api',
        chatPrefix: '/live',
      });
      const base = transport.listens ? await prefixed.listen(0) : undefined;
      try {
        const client = transport.client(prefixed, base, KEYS.supervisor, {
          messagingPrefix: '/api',
          chatPrefix: '/live',
        });
        expect(await client.users.me()).toMatchObject({ id: IDS.supervisor });
        expect(await client.chatParticipants.get(IDS.openChat)).toMatchObject({ id: IDS.openChat });
        const wrong = transport.client(prefixed, base, KEYS.supervisor);
        await expect(wrong.users.me()).rejects.toBeInstanceOf(PlatformNotFoundError);
        // emulator.client(): in process, with the emulator's own prefixes
        expect(await prefixed.client(KEYS.supervisor).chatParticipants.get(IDS.openChat)).toMatchObject({
          id: IDS.openChat,
        });
        expect(prefixed.url).toBe(base);
      } finally {
        await prefixed.close();
      }
    });

    it('call() reaches any operation of the table by id, typed by it', async () => {
      const chat = await supervisor.call('terminateChatParticipant', { params: { id: IDS.openChat } });
      expect(chat).toMatchObject({ id: IDS.openChat, conversationClosed: true });
      const page = await supervisor.call('listUsersPage', { query: { size: 1 } });
      expect(page).toMatchObject({ totalElements: 3, size: 1 });
      await expect(supervisor.call('getChatParticipant', { query: { id: 'nope' } })).rejects.toBeInstanceOf(
        PlatformNotFoundError,
      );
    });
  });

  describe('typed errors carry status and body', () => {
    const table = [
      {
        status: 400,
        type: PlatformBadRequestError,
        code: 'BAD_REQUEST',
        run: () => supervisor.users.create({ email: 'not-an-email' }),
      },
      {
        status: 401,
        type: PlatformUnauthorizedError,
        code: 'UNAUTHORIZED',
        run: () => clientFor('wrong-key').users.me(),
      },
      {
        status: 403,
        type: PlatformForbiddenError,
        code: 'FORBIDDEN',
        run: () => supervisor.webhooks.create({ messagingNumberId: '00000000-0000-4000-8000-000000000043' }),
      },
      {
        status: 404,
        type: PlatformNotFoundError,
        code: 'NOT_FOUND',
        run: () => supervisor.chatParticipants.get('nope'),
      },
      {
        status: 409,
        type: PlatformConflictError,
        code: 'CONFLICT',
        run: async () => {
          await supervisor.webhooks.create({});
          return supervisor.webhooks.create({});
        },
      },
    ] as const;

    it.each(table)('$status → $code', async ({ status, type, code, run }) => {
      const error: unknown = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(PlatformError);
      expect(error).toMatchObject({ status, code, body: { status: 'ERROR', message: expect.any(String) } });
      expect((error as Error).message).toContain(String(status));
    });
  });
});
