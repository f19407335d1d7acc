/*
 * Retention: what a long run leaves behind (closed chats, outbound messages, rating widgets) is
 * kept up to a limit each, the oldest going first; open chats, users, numbers and
 * configurations are never dropped. The delivery log has its own limit (deliveryLogLimit).
 */
import request from 'supertest';
import { createEmulator, DEFAULT_RETENTION, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

const customer = (n: number): string => `+2783333${String(n).padStart(4, '0')}`;

let emulator: Emulator;
afterEach(() => emulator.close());

/** Opens a chat for customer `n` and closes it (v2 terminate); returns its id. */
async function closedChat(n: number): Promise<string> {
  const { chatParticipantId } = emulator.customerMessage({
    number: SEED.cloud.msisdn,
    from: customer(n),
    text: 'hi',
  });
  const closed = await request(emulator.listener)
    .post(`/chat/v2/ChatParticipant/${chatParticipantId}/terminate`)
    .set('authorization', SEED.supervisorKey);
  expect(closed.status).toBe(200);
  return chatParticipantId;
}

describe('retention', () => {
  it('has documented defaults', () => {
    emulator = createEmulator();
    expect(DEFAULT_RETENTION).toEqual({ closedChats: 10_000, messages: 100_000, ratingWidgets: 10_000 });
    expect(emulator.state.retention).toEqual(DEFAULT_RETENTION);
  });

  it('keeps the newest closed chats; a dropped one is a 404, its customer opens a new chat', async () => {
    emulator = createEmulator({ clock: T0, retention: { closedChats: 2 } });
    const open = emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(99), text: 'hi' });
    const closed = [await closedChat(0), await closedChat(1), await closedChat(2)];
    expect(emulator.chatParticipant(closed[0] ?? '')).toBeUndefined();
    expect(emulator.chatParticipant(closed[1] ?? '')).toBeDefined();
    expect(emulator.chatParticipant(open.chatParticipantId)).toBeDefined();
    expect(emulator.state.listings.closedChats.size).toBe(2);
    const gone = await request(emulator.listener)
      .get('/chat/ChatParticipant')
      .query({ id: closed[0] })
      .set('authorization', SEED.supervisorKey);
    expect(gone.status).toBe(404);
    const again = emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(0), text: 'back' });
    expect(again.chatParticipantId).not.toBe(closed[0]);
    // open chats are never dropped, however many
    for (let n = 100; n < 110; n += 1)
      emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(n), text: 'hi' });
    expect(emulator.state.listings.openChats.size).toBe(12);
  });

  it('keeps the newest outbound messages; a status change for a dropped one is a 404', () => {
    emulator = createEmulator({ clock: T0, retention: { messages: 3 } });
    const sent = Array.from(
      { length: 5 },
      (_, n) => emulator.sendMessage({ number: SEED.cloud.msisdn, to: customer(n) }).message.gstId,
    );
    expect([...emulator.state.messages.keys()]).toEqual(sent.slice(2));
    expect(() => emulator.updateMessageStatus({ gstId: sent[0] ?? '', status: 'SENT' })).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', field: 'gstId' }),
    );
    expect(emulator.updateMessageStatus({ gstId: sent[4] ?? '', status: 'SENT' }).message.status).toBe(
      'SENT',
    );
  });

  it('a message outlives its dropped chat: its status events still name the customer', async () => {
    emulator = createEmulator({ clock: T0, retention: { closedChats: 1 } });
    const { message, chatParticipantId } = emulator.sendMessage({
      number: SEED.cloud.msisdn,
      to: customer(1),
    });
    await request(emulator.listener)
      .post(`/chat/v2/ChatParticipant/${chatParticipantId}/terminate`)
      .set('authorization', SEED.supervisorKey);
    await closedChat(2);
    expect(emulator.chatParticipant(chatParticipantId)).toBeUndefined();
    const { payload } = emulator.updateMessageStatus({ gstId: message.gstId, status: 'SENT' });
    expect(payload).toMatchObject({
      receiver: customer(1),
      recipientUserId: `BSUID.${customer(1).slice(1)}`,
      conversationId: message.conversationId,
    });
  });

  it('keeps the newest rating widgets', async () => {
    emulator = createEmulator({ clock: T0, retention: { ratingWidgets: 2 } });
    for (let n = 0; n < 4; n += 1) {
      const { chatParticipantId } = emulator.customerMessage({
        number: SEED.cloud.msisdn,
        from: customer(n),
        text: 'hi',
      });
      await request(emulator.listener)
        .put('/chat/ChatParticipant/terminateChatParticipantChat')
        .set('authorization', SEED.supervisorKey)
        .send({ id: chatParticipantId, conversationClosed: true, sendRatingWidget: true });
    }
    expect(emulator.state.ratingWidgets.size).toBe(2);
  });

  it.each([{ closedChats: -1 }, { messages: 1.5 }, { ratingWidgets: Number.NaN }])(
    'refuses %j with a TypeError naming the field',
    (retention) => {
      expect(() => createEmulator({ retention })).toThrow(
        new RegExp(`retention\\.${Object.keys(retention)[0] ?? ''} must be an integer >= 0`),
      );
    },
  );

  it('refuses a misspelled retention key', () => {
    expect(() => createEmulator({ retention: { closedChat: 5 } as never })).toThrow(/retention\.closedChat/);
  });
});
