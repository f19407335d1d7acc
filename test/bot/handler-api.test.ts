import { randomUUID } from 'node:crypto';
import { Composer, createBot, type DeadLetter } from '../../src/index.js';
import {
  buildChatbotEvent,
  buildIncoming,
  buildPartnerEvent,
  buildSession,
  buildStatus,
} from '../../src/testing/index.js';
import { createReceiver } from './helpers.js';

/** A chatbot text turn from a customer, in a chat of its own unless `chat` is given. */
const customerSays = (messageText: string, chat: string = randomUUID()) =>
  buildChatbotEvent({ chatParticipantId: chat, messageText, messageType: 'TEXT' });

describe('a bot routes each event to the handlers whose filter matches', () => {
  it('narrows by webhook type and kind: chatbot direction and messageType, content type, status, statusType, eventType', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.on('chatbot', () => void seen.push('chatbot'));
    bot.on('chatbot:INCOMING', () => void seen.push('chatbot:INCOMING'));
    bot.on(
      'chatbot:INCOMING:TEXT',
      (ctx) => void seen.push(`chatbot:INCOMING:TEXT ${ctx.payload.messageText}`),
    );
    bot.on(
      'chatbot:INCOMING:MEDIA',
      (ctx) => void seen.push(`chatbot:INCOMING:MEDIA ${ctx.payload.mediaUrl}`),
    );
    bot.on('chatbot:OUTGOING', () => void seen.push('chatbot:OUTGOING'));
    bot.on('incoming:TEXT', (ctx) => void seen.push(`incoming:TEXT ${ctx.payload.text}`));
    bot.on('incoming:MEDIA', () => void seen.push('incoming:MEDIA'));
    bot.on('status:READ', (ctx) => void seen.push(`status:${ctx.payload.status}`));
    bot.on('status:FAILED', (ctx) => void seen.push(`status:FAILED ${ctx.payload.errorCode}`));
    bot.on('session:disconnected', (ctx) => void seen.push(`session:${ctx.payload.statusType}`));
    bot.on(
      'event:USER_PREFERENCE',
      (ctx) => void seen.push(`event:USER_PREFERENCE ${ctx.payload.preferenceValue}`),
    );
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });

    const cases: [Parameters<typeof receiver.send>[0], unknown, string[]][] = [
      ['chatbot', customerSays('hi'), ['chatbot', 'chatbot:INCOMING', 'chatbot:INCOMING:TEXT hi']],
      [
        'chatbot',
        buildChatbotEvent({
          messageType: 'MEDIA',
          mediaUrl: 'https://cdn.example/a.jpg',
          messageText: undefined,
        }),
        ['chatbot', 'chatbot:INCOMING', 'chatbot:INCOMING:MEDIA https://cdn.example/a.jpg'],
      ],
      // TEXT without messageText: the TEXT query promises a string, so it does not match.
      [
        'chatbot',
        buildChatbotEvent({ messageType: 'TEXT', messageText: undefined }),
        ['chatbot', 'chatbot:INCOMING'],
      ],
      ['chatbot', buildChatbotEvent({ direction: 'OUTGOING' }), ['chatbot', 'chatbot:OUTGOING']],
      ['incoming', buildIncoming({ text: 'hello' }), ['incoming:TEXT hello']],
      ['incoming', buildIncoming({ messageContentType: 'MEDIA' }), ['incoming:MEDIA']],
      ['incoming', buildIncoming({ messageContentType: 'LOCATION' }), []],
      ['status', buildStatus({ status: 'READ' }), ['status:READ']],
      ['status', buildStatus({ status: 'DELIVERED' }), []],
      ['status', buildStatus({ status: 'FAILED', errorCode: '131047' }), ['status:FAILED 131047']],
      ['session', buildSession({ statusType: 'disconnected' }), ['session:disconnected']],
      ['session', buildSession({ statusType: 'success' }), []],
      ['event', buildPartnerEvent({ preferenceValue: 'stop' }), ['event:USER_PREFERENCE stop']],
      ['event', buildPartnerEvent({ eventType: 'USER_CHANGED_NUMBER' }), []],
    ];
    for (const [type, payload, expected] of cases) {
      seen.length = 0;
      expect(await receiver.send(type, payload)).toBe(200);
      await receiver.idle();
      expect({ type, seen }).toEqual({ type, seen: expected });
    }
    await receiver.close();
  });

  it('takes several queries at once, any of which matches', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.on(['status:READ', 'status:DELIVERED'], (ctx) => void seen.push(ctx.payload.status));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const status of ['SENT', 'DELIVERED', 'READ'] as const)
      await receiver.send('status', buildStatus({ status }));
    await receiver.idle();
    expect(seen).toEqual(['DELIVERED', 'READ']);
  });

  it('runs every matching handler of an event in registration order, onAny included, each awaited before the next', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.onAny((ctx) => void seen.push(`any ${ctx.type}`));
    bot.on('chatbot:INCOMING', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push('first');
    });
    bot.on(
      'chatbot',
      () => void seen.push('second'),
      () => void seen.push('third'),
    );
    bot.hears('hello', () => void seen.push('fourth'));
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('Hello'));
    await receiver.idle();
    expect(seen).toEqual(['any chatbot', 'first', 'second', 'third', 'fourth']);
  });

  it('runs otherwise only for events no handler before it matched, and onAny does not count as handling', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.onAny(() => void seen.push('logged'));
    bot.hears(/^bye\b/i, () => void seen.push('goodbye'));
    bot.otherwise((ctx) => void seen.push(`fallback handled=${String(ctx.handled)}`));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', customerSays('bye now'));
    await receiver.send('chatbot', customerSays('what?'));
    await receiver.idle();
    expect(seen).toEqual(['logged', 'goodbye', 'logged', 'fallback handled=false']);
  });

  it('gives handlers the callback context: attempt, ordering key, payload version, logger, request id', async () => {
    let seen: Record<string, unknown> = {};
    const bot = createBot();
    bot.on('chatbot', (ctx) => {
      seen = {
        type: ctx.type,
        attempt: ctx.attempt,
        orderingKey: ctx.orderingKey,
        payloadVersion: ctx.payloadVersion,
        requestId: typeof ctx.requestId,
        logger: typeof ctx.logger.info,
        receivedAt: ctx.receivedAt instanceof Date,
        dedupeKey: typeof ctx.dedupeKey,
      };
    });
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('hi', 'chat-7'));
    await receiver.idle();
    expect(seen).toEqual({
      type: 'chatbot',
      attempt: 1,
      orderingKey: 'chatbot:chat-7',
      payloadVersion: 'v2',
      requestId: 'string',
      logger: 'function',
      receivedAt: true,
      dedupeKey: 'string',
    });
  });

  it('gives the receiver a callback only for the types some handler can run for', () => {
    const bot = createBot();
    bot.use((_ctx, next) => next());
    expect(Object.keys(bot.handlers())).toEqual([]);
    bot.hears('hi', () => undefined);
    bot.on('status:READ', () => undefined);
    expect(Object.keys(bot.handlers()).sort()).toEqual(['onChatbot', 'onStatus']);
    bot.onAny(() => undefined);
    expect(Object.keys(bot.handlers()).sort()).toEqual([
      'onChatbot',
      'onEvent',
      'onIncoming',
      'onSession',
      'onStatus',
    ]);
  });

  it('runs handlers registered after handlers() was taken, for the types it covers', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.on('chatbot', () => void seen.push('early'));
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('one'));
    await receiver.idle();
    bot.on('chatbot:INCOMING:TEXT', (ctx) => void seen.push(`late ${ctx.payload.messageText}`));
    await receiver.send('chatbot', customerSays('two'));
    await receiver.idle();
    expect(seen).toEqual(['early', 'early', 'late two']);
  });

  it('refuses a filter query it does not know, naming the closest one, and one its composer never sees', () => {
    const bot = createBot();
    const on = bot.on.bind(bot) as (filter: unknown, handler: () => void) => unknown;
    expect(() => on('chatbot:INCOMMING:TEXT', () => undefined)).toThrow(
      new TypeError(
        'on: unknown filter query "chatbot:INCOMMING:TEXT": did you mean \'chatbot:INCOMING:TEXT\'?',
      ),
    );
    expect(() => on('chatbot:INCOMING:Combined', () => undefined)).toThrow(/unknown filter query/);
    expect(() => on([], () => undefined)).toThrow(/non-empty array/);
    const scoped = bot.on('chatbot:INCOMING') as unknown as { on: typeof on };
    expect(() => scoped.on('status', () => undefined)).toThrow(
      new TypeError("on: 'status' never matches in a composer scoped to 'chatbot:INCOMING'"),
    );
    expect(() => scoped.on('chatbot:OUTGOING', () => undefined)).toThrow(/never matches/);
    expect(() => bot.on('chatbot', 'not a function' as never)).toThrow(/expected handler functions/);
  });
});

describe('text matching', () => {
  it('hears a string as the whole text, ignoring case and surrounding spaces, and puts the trigger on ctx.match', async () => {
    const seen: unknown[] = [];
    const bot = createBot();
    bot.hears(['yes', 'Y'], (ctx) => void seen.push(ctx.match));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const text of ['  YES ', 'y', 'yes please', 'no'])
      await receiver.send('chatbot', customerSays(text));
    await receiver.idle();
    expect(seen).toEqual(['yes', 'Y']);
  });

  it('hears a RegExp with its match array on ctx.match, a global pattern keeping no state between events', async () => {
    const seen: unknown[] = [];
    const bot = createBot();
    bot.hears(/order (\d+)/gi, (ctx) => void seen.push([...ctx.match]));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const text of ['Order 12', 'order 34', 'where is order 56?', 'no order']) {
      await receiver.send('chatbot', customerSays(text));
    }
    await receiver.idle();
    expect(seen).toEqual([
      ['Order 12', '12'],
      ['order 34', '34'],
      ['order 56', '56'],
    ]);
  });

  it('hears only INCOMING chatbot events with text', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.hears(/.*/, (ctx) => void seen.push(ctx.payload.messageText));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', buildChatbotEvent({ direction: 'OUTGOING', messageText: 'from the bot' }));
    await receiver.send('chatbot', buildChatbotEvent({ messageType: 'LOCATION', messageText: undefined }));
    await receiver.send(
      'chatbot',
      buildChatbotEvent({ messageType: 'BUTTON', messageText: 'Track my order' }),
    );
    await receiver.idle();
    expect(seen).toEqual(['Track my order']);
  });

  it('matches a command by name, ignoring case, with its arguments on ctx.match', async () => {
    const seen: unknown[] = [];
    const bot = createBot();
    bot.command(['start', '/help'], (ctx) => void seen.push(ctx.match));
    bot.command('order', (ctx) => void seen.push(`order ${ctx.match}`));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const text of ['/Start', '/help me  please ', '/order 1234', 'start', '/starting', '/orders 1']) {
      await receiver.send('chatbot', customerSays(text));
    }
    await receiver.idle();
    expect(seen).toEqual(['', 'me  please', 'order 1234']);
    expect(() => bot.command('two words', () => undefined)).toThrow(TypeError);
  });
});

describe('middleware', () => {
  it('runs around what was registered after it, in order, and sees what the handlers did', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.on('chatbot', () => void seen.push('before the middleware'));
    bot.use(async (ctx, next) => {
      seen.push('outer in');
      await next();
      seen.push(`outer out handled=${String(ctx.handled)}`);
    });
    bot.use((_ctx, next) => {
      seen.push('inner');
      return next();
    });
    bot.hears('hi', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push('handler');
    });
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(seen).toEqual(['before the middleware', 'outer in', 'inner', 'handler', 'outer out handled=true']);
  });

  it('stops the chain when it does not call next()', async () => {
    const seen: string[] = [];
    const bot = createBot();
    bot.use((ctx, next) =>
      ctx.type === 'chatbot' && ctx.payload.direction === 'OUTGOING' ? undefined : next(),
    );
    bot.on('chatbot', (ctx) => void seen.push(String(ctx.payload.direction)));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', buildChatbotEvent({ direction: 'OUTGOING' }));
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(seen).toEqual(['INCOMING']);
  });

  it('fails the job when what follows fails, even if the middleware did not await next()', async () => {
    const deadLetters: DeadLetter[] = [];
    const bot = createBot();
    bot.use((_ctx, next) => {
      void next();
    });
    bot.on('chatbot', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('handler failed');
    });
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(deadLetters.map((dl) => (dl.error as Error).message)).toEqual(['handler failed']);
  });

  it('lets a middleware that awaited next() handle its error', async () => {
    const deadLetters: DeadLetter[] = [];
    const caught: string[] = [];
    const bot = createBot();
    bot.use(async (_ctx, next) => {
      try {
        await next();
      } catch (error) {
        caught.push((error as Error).message);
      }
    });
    bot.on('chatbot', () => {
      throw new Error('handled by the middleware');
    });
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect({ caught, deadLetters, succeeded: receiver.stats().chatbot.succeeded }).toEqual({
      caught: ['handled by the middleware'],
      deadLetters: [],
      succeeded: 1,
    });
  });

  it('fails the job when a middleware calls next() twice', async () => {
    const deadLetters: DeadLetter[] = [];
    const bot = createBot();
    bot.use(async (_ctx, next) => {
      await next();
      await next();
    });
    bot.on('chatbot', () => undefined);
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(deadLetters.map((dl) => String(dl.error))).toEqual([
      'TypeError: next() was called twice by one middleware',
    ]);
  });
});

describe('composers: handlers split across files, mounted in place', () => {
  it('runs a mounted composer’s handlers and middleware in its place in the order', async () => {
    const seen: string[] = [];
    const greetings = new Composer();
    greetings.use(async (_ctx, next) => {
      seen.push('greetings middleware');
      await next();
    });
    greetings.hears(/^hi\b/i, () => void seen.push('greeting'));
    const orders = new Composer();
    orders.command('order', (ctx) => void seen.push(`order ${ctx.match}`));
    const bot = createBot();
    bot.onAny(() => void seen.push('first'));
    bot.use(greetings, orders);
    bot.otherwise(() => void seen.push('fallback'));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const text of ['hi there', '/order 7', 'hmm']) await receiver.send('chatbot', customerSays(text));
    await receiver.idle();
    expect(seen).toEqual([
      'first',
      'greetings middleware',
      'greeting',
      'first',
      'greetings middleware',
      'order 7',
      'first',
      'greetings middleware',
      'fallback',
    ]);
  });

  it('scopes a composer to a filter with on(filter), which nests', async () => {
    const seen: string[] = [];
    const bot = createBot();
    const incoming = bot.on('chatbot:INCOMING');
    incoming.use(async (_ctx, next) => {
      seen.push('incoming middleware');
      await next();
    });
    incoming
      .on('chatbot:INCOMING:TEXT')
      .hears('hello', (ctx) => void seen.push(`hello ${ctx.payload.messageText}`));
    incoming.on('chatbot', (ctx) => void seen.push(`any incoming ${String(ctx.payload.messageType)}`));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', customerSays('Hello'));
    await receiver.send('chatbot', buildChatbotEvent({ direction: 'OUTGOING' }));
    await receiver.idle();
    expect(seen).toEqual(['incoming middleware', 'hello Hello', 'any incoming TEXT']);
  });

  it('refuses a composer mounting itself', () => {
    const composer = new Composer();
    expect(() => composer.use(composer)).toThrow(/cannot mount itself/);
  });
});
