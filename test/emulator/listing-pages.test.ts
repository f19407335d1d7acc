/*
 * Pages, not dumps: the control surface's listings and the inspector answer one page, filtered
 * on the server, so no answer grows with the state. Measured by size: an emulator with 2,000
 * chats and 400 outbound messages answers as many bytes as one with 240 and 60, a full page of
 * each (give or take the
 * digits of its totals). And the pages themselves: walked with their cursors they list every
 * record once, in creation order, filters applied.
 */
import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const customer = (n: number): string => `+2783222${String(n).padStart(4, '0')}`;

/** An emulator with `chats` chats (every 4th closed) and `messages` outbound messages. */
async function sized(chats: number, messages: number): Promise<Emulator> {
  const emulator = createEmulator({ clock: T0, retry: { attempts: 1 } });
  for (let n = 0; n < chats; n += 1) {
    const { chatParticipantId } = emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: customer(n),
      text: 'hi',
    });
    if (n % 4 === 3)
      emulator.state.setConversationClosed(emulator.state.chatParticipants.get(chatParticipantId)!, true);
  }
  for (let n = 0; n < messages; n += 1) emulator.sendMessage({ number: SEED.cloud.msisdn, to: customer(n) });
  return emulator;
}

const ANSWERS: readonly [string, string, string | undefined][] = [
  ['the inspector page', '/', BROWSER_ACCEPT],
  ['its view model', '/_emulator/inspector/view', undefined],
  ['its state part', '/_emulator/inspector/state', undefined],
  ['GET /_emulator/chat-participants', '/_emulator/chat-participants', undefined],
  ['GET /_emulator/chat-participants?open=false', '/_emulator/chat-participants?open=false', undefined],
  ['GET /_emulator/messages', '/_emulator/messages?order=desc', undefined],
];

describe('no answer grows with the state', () => {
  let small: Emulator;
  let large: Emulator;
  beforeAll(async () => {
    small = await sized(240, 60);
    large = await sized(2000, 400);
  });
  afterAll(async () => {
    await small.close();
    await large.close();
  });

  it.each(ANSWERS)('%s', async (_, path, accept) => {
    const size = async (emulator: Emulator): Promise<number> => {
      const call = request(emulator.listener).get(path);
      const response = accept === undefined ? await call : await call.set('accept', accept);
      expect(response.status).toBe(200);
      return Buffer.byteLength(response.text);
    };
    const [smallBytes, largeBytes] = [await size(small), await size(large)];
    expect(Math.abs(largeBytes - smallBytes)).toBeLessThan(200);
  });

  it('walked with their cursors, the pages list every chat once, in creation order', async () => {
    const walk = async (query: string): Promise<string[]> => {
      const ids: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const response = await request(large.listener).get(
          `/_emulator/chat-participants?limit=300&${query}&cursor=${cursor}`,
        );
        const page = response.body as { items: { id: string }[]; total: number; nextCursor: string | null };
        ids.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor;
      }
      return ids;
    };
    const all = [...large.state.chatParticipants.values()];
    expect(await walk('')).toEqual(all.map((chat) => chat.id));
    expect(await walk('open=false')).toEqual(
      all.filter((chat) => chat.conversationClosed).map((chat) => chat.id),
    );
    const newest = await walk('order=desc&customer=%2B27832220007');
    // customer 7's chat was closed; the outbound message opened a second one: newest first
    const sevens = all.filter((chat) => chat.sender === customer(7)).map((chat) => chat.id);
    expect(sevens).toHaveLength(2);
    expect(newest).toEqual(sevens.reverse());
    const first = await request(large.listener).get('/_emulator/chat-participants?open=true&limit=2');
    expect(first.body).toMatchObject({ total: large.state.listings.openChats.size, limit: 2 });
    expect(large.state.listings.openChats.size).toBe(1500 + 100);
    const bad = await request(large.listener).get('/_emulator/chat-participants?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', field: 'limit' });
  });
});
