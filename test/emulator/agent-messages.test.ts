import { createPlatformClient, PlatformConflictError } from '../../src/client/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { conversationOf } from '../../src/emulator/inspector/model.js';
import { SEED, T0, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Reply to a customer from a chatbot webhook (referenced): Send an agent message (v2) and Upload
 * media for an agent message (v2), through the typed client against the emulator, and what a
 * sent message does to the chat and the webhooks.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
});
afterAll(async () => {
  await h.close();
});

const CUSTOMER = '+27831117777';
const SEND = '/chat/v2/AgentMessage';
const UPLOAD = '/chat/v2/AgentMessage/media';

function openChat(text = 'Hi'): string {
  return h.emulator.customerMessage({ number: SEED.lite.msisdn, from: CUSTOMER, text }).chatParticipantId;
}

describe('Send an agent message (v2)', () => {
  it('records the message, emits the OUTGOING chatbot event and the SENT, DELIVERED receipts', async () => {
    await h.createConfig({
      ...h.urls('a'),
      chatbotIncludeOutgoing: true,
    });
    const chatParticipantId = openChat();
    await h.settle();
    h.calls.length = 0;
    const platform = h.emulator.client(SEED.supervisorKey);
    const sent = await platform.agentMessages.send({
      chatParticipantId,
      channel: 'MESSAGING',
      text: 'Hello!',
    });
    expect(sent).toMatchObject({
      chatParticipantId,
      channel: 'MESSAGING',
      text: 'Hello!',
      sentBy: { id: SEED.users.supervisor },
      createdTime: new Date(T0).toISOString(),
    });
    await h.settle();
    expect(h.calls.map((call) => [call.type, call.payload.direction ?? call.payload.status])).toEqual([
      ['chatbot', 'OUTGOING'],
      ['status', 'SENT'],
      ['status', 'DELIVERED'],
    ]);
    expect(h.calls[0]?.payload).toMatchObject({ messageText: 'Hello!', chatParticipantId });
    expect(h.calls[1]?.payload).toMatchObject({ gstId: sent.id, receiver: CUSTOMER });
    expect(h.emulator.message(sent.id)).toMatchObject({
      status: 'DELIVERED',
      agentMessage: { text: 'Hello!', sentBy: SEED.users.supervisor },
    });
    expectAllDeliveriesValid(h.emulator);
  });

  it('emits no OUTGOING event where the configuration does not ask for one (chatbotIncludeOutgoing false)', async () => {
    await h.createConfig({ chatbotWebhookURL: h.urls('a').chatbotWebhookURL });
    const chatParticipantId = openChat();
    await h.settle();
    h.calls.length = 0;
    await h.emulator
      .client(SEED.agentKey)
      .agentMessages.send({ chatParticipantId, channel: 'MESSAGING', text: 'x' });
    await h.settle();
    expect(h.calls).toEqual([]);
  });

  it('shows in the inspector’s conversation from its receipts alone when no OUTGOING event is sent', async () => {
    await h.createConfig({ statusUpdateURL: h.urls('a').statusUpdateURL });
    const chatParticipantId = openChat('Is it open today?');
    await h.emulator
      .client(SEED.agentKey)
      .agentMessages.send({ chatParticipantId, channel: 'MESSAGING', text: 'Yes, until 6.' });
    await h.settle();
    const view = conversationOf(h.emulator.state, h.emulator.deliveries(), chatParticipantId);
    expect(view?.items.map(({ side, kind, text, receipts }) => ({ side, kind, text, receipts }))).toEqual([
      { side: 'business', kind: 'outbound', text: 'Yes, until 6.', receipts: ['SENT', 'DELIVERED'] },
    ]);
  });

  it('answers 401 without a key, 404 for another client’s chat, 409 for a closed chat, 400 for another channel', async () => {
    const chatParticipantId = openChat();
    const body = { chatParticipantId, channel: 'MESSAGING', text: 'x' };
    const noKey = await h.api().post(SEND).send(body);
    expect(noKey.status).toBe(401);
    const foreign = await h.api().post(SEND).set('authorization', SEED.otherClientKey).send(body);
    expect([foreign.status, foreign.body.code, foreign.body.field]).toEqual([
      404,
      'NOT_FOUND',
      'chatParticipantId',
    ]);
    const channel = await h
      .api()
      .post(SEND)
      .set('authorization', SEED.agentKey)
      .send({ ...body, channel: 'WEB' });
    expect([channel.status, channel.body.field]).toEqual([400, 'channel']);
    const empty = await h
      .api()
      .post(SEND)
      .set('authorization', SEED.agentKey)
      .send({ chatParticipantId, channel: 'MESSAGING' });
    expect([empty.status, empty.body.code]).toEqual([400, 'BAD_REQUEST']);
    await h.emulator.client(SEED.supervisorKey).chatParticipants.terminate(chatParticipantId);
    const closed = h.emulator.client(SEED.agentKey).agentMessages.send(body as never);
    await expect(closed).rejects.toBeInstanceOf(PlatformConflictError);
    await expect(closed).rejects.toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
  });

  it('answers 403 for a caller without a live-chat role', async () => {
    const platform = h.emulator.client(SEED.supervisorKey);
    const created = await platform.users.create({
      email: 'norole@example.test',
      firstName: 'No',
      lastName: 'Role',
      liveChatRole: null,
    });
    expect(h.emulator.state.users.get(created.id)?.liveChatRole).toBeNull();
    const chatParticipantId = openChat();
    const key = h.emulator.state.users.get(created.id)?.apiKey ?? '';
    const response = await h
      .api()
      .post(SEND)
      .set('authorization', key)
      .send({ chatParticipantId, channel: 'MESSAGING', text: 'x' });
    expect(response.status).toBe(403);
  });
});

describe('Upload media for an agent message (v2)', () => {
  it('stores the file, serves it at mediaUrl, and a message can send it', async () => {
    await h.createConfig({ ...h.urls('a'), chatbotIncludeOutgoing: true });
    const chatParticipantId = openChat();
    const platform = h.emulator.client(SEED.agentKey);
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 1, 2, 3]);
    const { mediaUrl } = await platform.agentMessages.uploadMedia({ data: bytes, fileName: 'receipt.pdf' });
    expect(mediaUrl).toMatch(/^http:\/\/localhost\/_emulator\/media\/[\w-]+\/receipt\.pdf$/);
    const served = await h.api().get(new URL(mediaUrl).pathname);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('application/pdf');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect([...(served.body as Buffer)]).toEqual([...bytes]);
    await h.settle();
    h.calls.length = 0;
    const sent = await platform.agentMessages.send({
      chatParticipantId,
      channel: 'MESSAGING',
      mediaUrl,
      caption: 'Your receipt',
    });
    expect(sent).toMatchObject({ mediaUrl, caption: 'Your receipt', text: null });
    await h.settle();
    expect(h.calls[0]?.payload).toMatchObject({ direction: 'OUTGOING', messageType: 'MEDIA', mediaUrl });
    // the file is in the snapshot, and a restored emulator serves it again
    const restored = createEmulator({ state: h.emulator.snapshot() });
    expect(restored.message(sent.id)?.agentMessage).toMatchObject({ mediaUrl, caption: 'Your receipt' });
    const again = await restored.fetch(mediaUrl);
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
    await restored.close();
  });

  it('refuses a media type it does not list (415) and a file over the limit (413), with JSON bodies', async () => {
    const type = await h
      .api()
      .post(`${UPLOAD}?fileName=x.exe`)
      .set('authorization', SEED.agentKey)
      .set('content-type', 'application/x-msdownload')
      .send(Buffer.from('MZ'));
    expect([type.status, type.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const small = createEmulator({ agentMessages: { maxMediaBytes: 4 } });
    const big = await small.fetch(`http://emulator.local${UPLOAD}?fileName=a.png`, {
      method: 'POST',
      headers: { authorization: SEED.agentKey, 'content-type': 'image/png' },
      body: new Uint8Array(5),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: 4 });
    await small.close();
  });

  it('refuses an emulator mediaUrl it does not keep (400 naming mediaUrl)', async () => {
    const chatParticipantId = openChat();
    const response = await h.api().post(SEND).set('authorization', SEED.agentKey).send({
      chatParticipantId,
      channel: 'MESSAGING',
      mediaUrl: 'http://emulator.local/_emulator/media/nope/a.png',
    });
    expect([response.status, response.body.field]).toEqual([400, 'mediaUrl']);
  });
});

describe('options', () => {
  it('pathOverrides moves the operations in the emulator and the client alike', async () => {
    const emulator = createEmulator({ pathOverrides: { sendAgentMessage: '/v2/agent-messages' } });
    const chatParticipantId = emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: CUSTOMER,
      text: 'Hi',
    }).chatParticipantId;
    const platform = createPlatformClient({
      baseUrl: 'http://emulator.local',
      apiKey: SEED.agentKey,
      pathOverrides: { sendAgentMessage: '/v2/agent-messages' },
      fetch: emulator.fetch,
    });
    await expect(
      platform.agentMessages.send({ chatParticipantId, channel: 'MESSAGING', text: 'x' }),
    ).resolves.toMatchObject({ text: 'x' });
    const old = await emulator.fetch(`http://emulator.local${SEND}`, {
      method: 'POST',
      headers: { authorization: SEED.agentKey },
    });
    expect(old.status).toBe(404);
    // the document the emulator serves lists the moved path
    const served = (await (await emulator.fetch('http://emulator.local/_emulator/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(served.paths)).toContain('/chat/v2/agent-messages');
    expect(Object.keys(served.paths)).not.toContain(SEND);
    expect(() => createEmulator({ pathOverrides: { getMyProfile: '/me' } as never })).toThrow(
      /pathOverrides.getMyProfile/,
    );
    expect(() => createEmulator({ pathOverrides: { terminateChatParticipant: '/v2/terminate' } })).toThrow(
      /\{id\}/,
    );
    await emulator.close();
  });

  it('agentMessages.receipts chooses the receipts; an undocumented sequence is a TypeError', async () => {
    const emulator = createEmulator({ agentMessages: { receipts: [] } });
    const chatParticipantId = emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: CUSTOMER,
      text: 'Hi',
    }).chatParticipantId;
    const sent = await emulator
      .client(SEED.agentKey)
      .agentMessages.send({ chatParticipantId, channel: 'MESSAGING', text: 'x' });
    expect(emulator.message(sent.id)?.status).toBe('ACCEPTED');
    await emulator.close();
    expect(() => createEmulator({ agentMessages: { receipts: ['DELIVERED'] } })).toThrow(
      /ACCEPTED -> DELIVERED/,
    );
  });
});
