import request from 'supertest';
import {
  createDefaultSeed,
  createEmulator,
  DEFAULT_API_KEYS,
  type Emulator,
  type EmulatorSeed,
} from '../../../src/emulator/index.js';

/** Fixed ids of the default seed, plus the chat participants this suite adds. */
export const IDS = {
  supervisor: '00000000-0000-4000-8000-000000000021',
  ada: '00000000-0000-4000-8000-000000000022',
  bob: '00000000-0000-4000-8000-000000000023',
  olga: '00000000-0000-4000-8000-000000000024',
  sales: '00000000-0000-4000-8000-000000000011',
  support: '00000000-0000-4000-8000-000000000012',
  /** Open chat of client demo, assigned to Ada. */
  openChat: '00000000-0000-4000-8000-000000000051',
  /** Closed chat of client demo. */
  closedChat: '00000000-0000-4000-8000-000000000052',
  /** Chat of client other. */
  foreignChat: '00000000-0000-4000-8000-000000000053',
} as const;

export const KEYS = {
  supervisor: DEFAULT_API_KEYS.supervisor,
  ada: DEFAULT_API_KEYS.agent,
  bob: 'emu-agent2-key',
  olga: DEFAULT_API_KEYS.otherClient,
} as const;

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
export const CHAT = '/chat';
export const V1 = '/Messaging/api/v1/users';
export const SU = '/Messaging/SystemUsers';

/** The default seed plus three chat participants with every optional string set. */
export function createSuiteSeed(): EmulatorSeed {
  const seed = createDefaultSeed();
  return {
    ...seed,
    chatParticipants: [
      {
        id: IDS.openChat,
        clientRef: 'demo',
        messagingClientNumber: '+27820000002',
        sender: '+27831110001',
        firstName: 'Carla',
        lastName: 'Customer',
        email: 'carla@example.test',
        subject: 'Billing',
        team: IDS.sales,
        companyName: 'Carla Co',
        conversationStatus: 'ACTIVE',
        assignedTo: IDS.ada,
        chatBotConversation: false,
        missedConversation: true,
        afterHoursConversation: true,
        sendRatingWidget: true,
        unread: true,
      },
      {
        id: IDS.closedChat,
        clientRef: 'demo',
        messagingClientNumber: '+27820000002',
        sender: '+27831110002',
        firstName: 'Dan',
        conversationClosed: true,
      },
      {
        id: IDS.foreignChat,
        clientRef: 'other',
        messagingClientNumber: '+27830000001',
        sender: '+27831110003',
      },
    ],
  };
}

/** A fresh emulator on the suite seed and a supertest agent factory on its listener. */
export function setup(): { emulator: Emulator; api: () => request.Agent } {
  const emulator = createEmulator({ seed: createSuiteSeed(), clock: T0, retry: { attempts: 1 } });
  return { emulator, api: () => request.agent(emulator.listener) };
}

/** Every path (a.b.0.c) at which `value` carries a key named in `keys`, at any depth. */
export function findKeys(value: unknown, keys: readonly string[], path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => findKeys(item, keys, `${path}${i}.`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(keys.includes(key) ? [`${path}${key}`] : []),
    ...findKeys(child, keys, `${path}${key}.`),
  ]);
}

/** The suite seed with every credential field set, so a renderer that copied one through is caught. */
export function seedWithEveryCredential() {
  const seed = createSuiteSeed();
  return {
    ...seed,
    clients: (seed.clients ?? []).map((client) => ({
      ...client,
      smsPassword: 'sms-secret',
      headerKeyPairsJson: '[{"key":"k","value":"v"}]',
    })),
    users: (seed.users ?? []).map((user) => ({
      ...user,
      tempPassword: 'temp-secret',
      loginToken: 'login-secret',
      emailVerificationKey: 'verify-secret',
      passwordResetKey: 'reset-secret',
      applicationKey: 'app-secret',
    })),
  };
}
