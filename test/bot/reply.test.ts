import { createBot, type DeadLetter } from '../../src/index.js';
import {
  agentMessageSchema,
  sendAgentMessageRequestSchema,
  uploadMediaRequestSchema,
  uploadMediaResponseSchema,
} from '../../src/schemas/index.js';
import { buildChatbotEvent, buildIncoming } from '../../src/testing/index.js';
import { createFakeAgentMessages, createReceiver } from './helpers.js';

const customerSays = (messageText: string, chatParticipantId = 'chat-1') =>
  buildChatbotEvent({ chatParticipantId, messageText, messageType: 'TEXT' });

describe('ctx.reply and ctx.replyWithMedia', () => {
  it('answers in the event’s chat with one Send an agent message (v2): chatParticipantId, channel MESSAGING, text', async () => {
    const agentMessages = createFakeAgentMessages();
    const answers: unknown[] = [];
    const bot = createBot({ agentMessages });
    bot.hears(/^hi/i, async (ctx) => void answers.push(await ctx.reply(`Hello ${ctx.match[0]}`)));
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('Hi there', 'chat-42'));
    await receiver.idle();
    expect(agentMessages.sent).toEqual([
      { chatParticipantId: 'chat-42', channel: 'MESSAGING', text: 'Hello Hi' },
    ]);
    // What the platform answered is handed back.
    expect(answers).toEqual([expect.objectContaining({ id: 'message-1', chatParticipantId: 'chat-42' })]);
    for (const sent of agentMessages.sent)
      expect(sendAgentMessageRequestSchema.safeParse(sent).success).toBe(true);
  });

  it('sends to the channel given to reply, else the bot’s replyChannel (a value or a function of the event)', async () => {
    const agentMessages = createFakeAgentMessages();
    const bot = createBot({
      agentMessages,
      replyChannel: (ctx) => (ctx.payload.clientRef === 'web-shop' ? 'WEB' : 'MESSAGING'),
    });
    bot.hears('social', (ctx) => ctx.reply('on social', { channel: 'SOCIAL' }));
    bot.hears('default', (ctx) => ctx.reply('by the function'));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', customerSays('social'));
    await receiver.send('chatbot', { ...customerSays('default'), clientRef: 'web-shop' });
    await receiver.send('chatbot', customerSays('default'));
    await receiver.idle();
    expect(agentMessages.sent.map((m) => [m.channel, m.text])).toEqual([
      ['SOCIAL', 'on social'],
      ['WEB', 'by the function'],
      ['MESSAGING', 'by the function'],
    ]);
  });

  it('uploads media first and sends the returned mediaUrl with the caption; a mediaUrl is sent as is', async () => {
    const agentMessages = createFakeAgentMessages();
    const bot = createBot({ agentMessages });
    bot.hears('invoice', (ctx) =>
      ctx.replyWithMedia(
        { data: new Uint8Array([37, 80, 68, 70]), fileName: 'invoice.pdf', contentType: 'application/pdf' },
        { caption: 'Your invoice' },
      ),
    );
    bot.hears('logo', (ctx) => ctx.replyWithMedia({ mediaUrl: 'https://cdn.example/logo.png' }));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', customerSays('invoice'));
    await receiver.send('chatbot', customerSays('logo'));
    await receiver.idle();
    expect(agentMessages.uploads.map((u) => [u.fileName, u.contentType])).toEqual([
      ['invoice.pdf', 'application/pdf'],
    ]);
    expect(agentMessages.sent).toEqual([
      {
        chatParticipantId: 'chat-1',
        channel: 'MESSAGING',
        mediaUrl: 'https://media.example/1/invoice.pdf',
        caption: 'Your invoice',
      },
      { chatParticipantId: 'chat-1', channel: 'MESSAGING', mediaUrl: 'https://cdn.example/logo.png' },
    ]);
  });

  it('fails the job with a TypeError saying what is missing: no agentMessages, an empty text, a bad channel, a non-chatbot event', async () => {
    const deadLetters: DeadLetter[] = [];
    const bot = createBot();
    bot.hears('no api', (ctx) => ctx.reply('x'));
    const withApi = createBot({ agentMessages: createFakeAgentMessages() });
    withApi.hears('empty', (ctx) => ctx.reply(''));
    withApi.hears('channel', (ctx) => ctx.reply('x', { channel: 'SMS' as never }));
    withApi.on('incoming', (ctx) => (ctx as unknown as { reply(text: string): Promise<unknown> }).reply('x'));
    const onDeadLetter = (dl: DeadLetter) => void deadLetters.push(dl);
    const first = createReceiver({ ...bot.handlers(), onDeadLetter });
    const second = createReceiver({ ...withApi.handlers(), onDeadLetter }, { concurrency: 1 });
    await first.send('chatbot', customerSays('no api'));
    await second.send('chatbot', customerSays('empty'));
    await second.send('chatbot', customerSays('channel'));
    await second.send('incoming', buildIncoming());
    await Promise.all([first.idle(), second.idle()]);
    expect(deadLetters.map((dl) => String(dl.error))).toEqual([
      'TypeError: ctx.reply: the bot has no agentMessages; give createBot({ agentMessages: client.agentMessages })',
      'TypeError: ctx.reply: expected a non-empty text, got ""',
      'TypeError: ctx.reply: expected a channel of MESSAGING, WEB, SOCIAL, got "SMS"',
      'TypeError: ctx.reply: only chatbot events can be answered, not incoming events',
    ]);
  });

  it('checks its options when built', () => {
    expect(() => createBot({ agentMessages: { send: () => Promise.resolve() } as never })).toThrow(
      /agentMessages: expected an object with send\(\) and uploadMedia\(\)/,
    );
    expect(() => createBot({ replyChannel: 'SMS' as never })).toThrow(
      new TypeError('replyChannel: expected MESSAGING, WEB, SOCIAL or a function, got "SMS"'),
    );
    expect(() => createBot({ agentMesages: {} } as never)).toThrow(/did you mean agentMessages/);
    expect(() => createBot({ session: { intial: () => ({}) } } as never)).toThrow(
      /session\.intial: did you mean session\.initial/,
    );
    expect(() => createBot({ session: { initial: 1 } } as never)).toThrow(
      /session\.initial: expected a function/,
    );
  });
});

describe('the agent-message schemas', () => {
  it('take text, media or both, and a caption only with media', () => {
    const base = { chatParticipantId: 'chat-1', channel: 'MESSAGING' };
    const issues = (body: object) =>
      sendAgentMessageRequestSchema
        .safeParse(body)
        .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ ...base, text: 'hi' })).toBeUndefined();
    expect(issues({ ...base, mediaUrl: 'https://m.example/1', caption: 'c' })).toBeUndefined();
    expect(issues({ ...base, text: 'hi', mediaUrl: 'https://m.example/1' })).toBeUndefined();
    expect(issues(base)).toEqual(['text: Expected text, mediaUrl or both']);
    expect(issues({ ...base, text: 'hi', caption: 'c' })).toEqual([
      'caption: caption is the text under media: it needs mediaUrl',
    ]);
    expect(issues({ ...base, channel: 'SMS', text: 'x' })?.[0]).toMatch(/^channel: /);
    expect(issues({ channel: 'WEB', text: 'x' })?.[0]).toMatch(/^chatParticipantId: /);
  });

  it('describe the recorded message and the upload', () => {
    expect(
      agentMessageSchema.safeParse({
        id: 'm-1',
        chatParticipantId: 'chat-1',
        channel: 'WEB',
        text: 'hi',
        createdTime: '2026-01-01T00:00:00.000Z',
        sentBy: { id: 'agent-1', email: 'agent@example.com' },
      }).success,
    ).toBe(true);
    expect(
      agentMessageSchema.safeParse({ id: 'm-1', chatParticipantId: 'chat-1', channel: 'WEB' }).success,
    ).toBe(false);
    expect(uploadMediaRequestSchema.safeParse({ data: new Blob(['x']), fileName: 'a.txt' }).success).toBe(
      true,
    );
    expect(uploadMediaRequestSchema.safeParse({ data: 'x', fileName: 'a.txt' }).success).toBe(false);
    expect(uploadMediaResponseSchema.safeParse({ mediaUrl: '' }).success).toBe(false);
  });
});
