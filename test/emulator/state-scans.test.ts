/*
 * No lookup on a trigger's or a route's path scans the state. Proven by counting: every entry a
 * Map or Set iterator hands out (values, keys, entries, for...of, forEach, spread) is a record
 * visited. Each operation below runs against two emulators, one small and one thirty times
 * larger (customers, chats, outbound messages, users); the
 * entries it visits must be the same in both. A scan over chats, users or messages visits more
 * in the larger one. Black-box: the count does not depend on how the state is written.
 */
import request from 'supertest';
import { createEmulator, createDefaultSeed, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

const CHAT = '/chat';
/** The API key of the HTTP operations (see sized()). */
const AUTH = 'last-demo-key';

/** Counts iterator steps of every Map and Set while `run` runs. */
async function entriesVisited(run: () => unknown): Promise<number> {
  let visited = 0;
  const patched: [object, PropertyKey, unknown][] = [];
  for (const proto of [Map.prototype, Set.prototype] as object[]) {
    for (const name of ['values', 'keys', 'entries', Symbol.iterator] as PropertyKey[]) {
      const original = Reflect.get(proto, name) as (this: unknown) => Iterator<unknown>;
      patched.push([proto, name, original]);
      Reflect.set(proto, name, function (this: unknown) {
        const iterator = original.call(this);
        const next = iterator.next.bind(iterator);
        return Object.assign(Object.create(iterator) as object, {
          next() {
            const step = next();
            if (step.done !== true) visited += 1;
            return step;
          },
          [Symbol.iterator]() {
            return this;
          },
        });
      });
    }
    const forEach = Reflect.get(proto, 'forEach') as (this: unknown, f: (...a: unknown[]) => void) => void;
    patched.push([proto, 'forEach', forEach]);
    Reflect.set(proto, 'forEach', function (this: unknown, f: (...a: unknown[]) => void, that?: unknown) {
      forEach.call(this, (...args: unknown[]) => {
        visited += 1;
        f.apply(that, args);
      });
    });
  }
  try {
    await run();
  } finally {
    for (const [proto, name, original] of patched) Reflect.set(proto, name, original);
  }
  return visited;
}

const customer = (n: number): string => `+2783${String(7_000_000 + n)}`;

interface Sized {
  readonly emulator: Emulator;
  /** Open chats (customers 0..n-1 on the Cloud number), ready for the operations. */
  readonly chats: string[];
}

/** An emulator holding `n` customers' chats, n/10 closed, n/3 outbound messages, n/10 users. */
function sized(n: number): Sized {
  const seed = createDefaultSeed();
  const users = Array.from({ length: n / 10 }, (_, i) => ({
    clientRef: 'other',
    email: `user${i}@other.test`,
    apiKey: `other-key-${i}`,
  }));
  // the key the HTTP operations use belongs to the last user: a scan for it passes every other
  const last = {
    clientRef: 'demo',
    email: 'last@demo.test',
    apiKey: AUTH,
    liveChatRole: 'SUPERVISOR' as const,
  };
  const emulator = createEmulator({
    seed: { ...seed, users: [...(seed.users ?? []), ...users, last] },
    clock: T0,
    retry: { attempts: 1 },
  });
  const chats: string[] = [];
  for (let i = 0; i < n; i += 1) {
    chats.push(
      emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(i), text: 'hi' })
        .chatParticipantId,
    );
  }
  for (let i = 0; i < n / 3; i += 1) emulator.sendMessage({ number: SEED.cloud.msisdn, to: customer(i) });
  return { emulator, chats };
}

const api = (emulator: Emulator) => request(emulator.listener);
const auth = AUTH;

/** Each operation, given a sized emulator; `k` picks fresh customers and chats per run. */
const OPERATIONS: readonly [string, (s: Sized, k: number) => unknown][] = [
  [
    'customerMessage from a new customer',
    ({ emulator }, k) =>
      emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(900_000 + k), text: 'hi' }),
  ],
  [
    'customerMessage from a customer with an open chat',
    ({ emulator }, k) =>
      emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(k), text: 'again' }),
  ],
  [
    'sendMessage and updateMessageStatus',
    ({ emulator }, k) => {
      const { message } = emulator.sendMessage({ number: SEED.cloud.msisdn, to: customer(800_000 + k) });
      return emulator.updateMessageStatus({ gstId: message.gstId, status: 'SENT' });
    },
  ],
  [
    'assignAgent (the agent with the fewest open chats), then unassignAgent',
    ({ emulator, chats }, k) => {
      const chatParticipantId = chats[20 + k] ?? '';
      emulator.assignAgent({ chatParticipantId });
      return emulator.unassignAgent({ chatParticipantId });
    },
  ],
  [
    'assignAgent to a named agent (its agentChatLimit checked)',
    ({ emulator, chats }, k) => {
      const chatParticipantId = chats[40 + k] ?? '';
      emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada });
      return emulator.unassignAgent({ chatParticipantId });
    },
  ],
  [
    'GET ChatParticipant (the API key looked up)',
    ({ emulator, chats }, k) =>
      api(emulator).get(`${CHAT}/ChatParticipant`).query({ id: chats[k] }).set('authorization', auth),
  ],
  [
    'v2 terminate and reopen (the open chat of the customer checked)',
    async ({ emulator, chats }, k) => {
      const id = chats[60 + k] ?? '';
      await api(emulator).post(`${CHAT}/v2/ChatParticipant/${id}/terminate`).set('authorization', auth);
      return api(emulator).post(`${CHAT}/v2/ChatParticipant/${id}/reopen`).set('authorization', auth);
    },
  ],
  [
    'the deprecated terminate (merge rules)',
    ({ emulator, chats }, k) =>
      api(emulator)
        .put(`${CHAT}/ChatParticipant/terminateChatParticipantChat`)
        .set('authorization', auth)
        .send({ id: chats[80 + k], conversationClosed: true }),
  ],
  [
    'create a user (e-mail and API key unique), then change its key (deprecated update)',
    async ({ emulator }, k) => {
      const created = await api(emulator)
        .post('/Messaging/api/v1/users')
        .set('authorization', auth)
        .send({ email: `new${k}@demo.test` });
      return api(emulator)
        .put('/Messaging/SystemUsers')
        .set('authorization', auth)
        .send({ id: (created.body as { id: string }).id, apiKey: `fresh-key-${k}` });
    },
  ],
  [
    'webhook configuration: create the default, list, delete',
    async ({ emulator }) => {
      const created = await api(emulator)
        .post('/Messaging/MessagingClientWebHook')
        .set('authorization', auth)
        .send({ incomingMessageURL: '' });
      await api(emulator).get('/Messaging/MessagingClientWebHook/list').set('authorization', auth);
      return api(emulator)
        .delete(`/Messaging/MessagingClientWebHook/${(created.body as { id: string }).id}`)
        .set('authorization', auth);
    },
  ],
];

describe('records visited per lookup do not grow with the state', () => {
  let small: Sized;
  let large: Sized;
  beforeAll(() => {
    small = sized(100);
    large = sized(3000);
  });
  afterAll(async () => {
    await small.emulator.close();
    await large.emulator.close();
  });

  it.each(OPERATIONS)('%s', async (_, operation) => {
    // twice each: the second run meets warm caches (Express's route table, zod's) on both sides
    const counts: number[][] = [];
    for (const subject of [small, large]) {
      const runs: number[] = [];
      for (let k = 0; k < 2; k += 1) runs.push(await entriesVisited(() => operation(subject, k)));
      counts.push(runs);
    }
    expect(counts[1]).toEqual(counts[0]);
  });

  it('the counter sees a scan: listing every chat visits each one', async () => {
    const smallCount = await entriesVisited(() => [...small.emulator.state.chatParticipants.values()]);
    const largeCount = await entriesVisited(() => [...large.emulator.state.chatParticipants.values()]);
    expect(largeCount - smallCount).toBe(
      large.emulator.state.chatParticipants.size - small.emulator.state.chatParticipants.size,
    );
  });
});
