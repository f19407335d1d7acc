import { performance } from 'node:perf_hooks';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import {
  createBot,
  createMemorySessionStore,
  SessionConflictError,
  type DeadLetter,
  type SessionStore,
} from '../../src/index.js';
import { buildChatbotEvent, buildIncoming, buildStatus } from '../../src/testing/index.js';
import { createReceiver, quickRetry } from './helpers.js';

const say = (chatParticipantId: string, messageText: string) =>
  buildChatbotEvent({ chatParticipantId, messageText, messageType: 'TEXT' });

/** A store that counts what the bot asks of it. */
function countingStore(inner: SessionStore = createMemorySessionStore()) {
  const calls = { reads: 0, writes: [] as (string | undefined)[] };
  const store: SessionStore = {
    read(key) {
      calls.reads += 1;
      return inner.read(key);
    },
    write(key, data, version) {
      calls.writes.push(data);
      return inner.write(key, data, version);
    },
  };
  return { store, calls };
}

describe('ctx.session', () => {
  it('keeps each conversation’s state across its events, apart from other conversations', async () => {
    const bot = createBot({ session: { initial: () => ({ count: 0, said: [] as string[] }) } });
    const seen: string[] = [];
    bot.on('chatbot:INCOMING:TEXT', (ctx) => {
      ctx.session.count += 1;
      ctx.session.said.push(ctx.payload.messageText);
      seen.push(`${ctx.payload.chatParticipantId} ${ctx.session.count} ${ctx.session.said.join(',')}`);
    });
    bot.on('incoming:TEXT', (ctx) => {
      ctx.session.count += 10;
      seen.push(`${ctx.payload.sender} ${ctx.session.count}`);
    });
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', say('chat-a', 'one'));
    await receiver.send('chatbot', say('chat-b', 'uno'));
    await receiver.send('chatbot', say('chat-a', 'two'));
    await receiver.send('incoming', buildIncoming({ sender: '+27831234567' }));
    await receiver.send('incoming', buildIncoming({ sender: '+27831234567' }));
    await receiver.idle();
    expect(seen).toEqual([
      'chat-a 1 one',
      'chat-b 1 uno',
      'chat-a 2 one,two',
      '+27831234567 10',
      '+27831234567 20',
    ]);
  });

  it('is undefined on status, session and partner events by default; assigning one fails the job', async () => {
    const deadLetters: DeadLetter[] = [];
    const seen: unknown[] = [];
    const bot = createBot({ session: { initial: () => ({ n: 0 }) } });
    bot.on('status', (ctx) => {
      seen.push(ctx.session);
      ctx.session = { n: 1 };
    });
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('status', buildStatus());
    await receiver.idle();
    expect(seen).toEqual([undefined]);
    expect(String(deadLetters[0]?.error)).toBe(
      'TypeError: ctx.session: status events have no session (getSessionKey gave none)',
    );
  });

  it('is undefined without the session option, and assigning one says how to turn sessions on', async () => {
    const deadLetters: DeadLetter[] = [];
    const bot = createBot();
    bot.on('chatbot', (ctx) => {
      expect(ctx.session).toBeUndefined();
      (ctx as { session: unknown }).session = { n: 1 };
    });
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('chatbot', say('chat-a', 'hi'));
    await receiver.idle();
    expect(String(deadLetters[0]?.error)).toBe(
      'TypeError: ctx.session: sessions are off; give createBot({ session: { initial } })',
    );
  });

  it('is saved only when the chain succeeds: a retry sees the state from before the failed attempt', async () => {
    const seen: string[] = [];
    const bot = createBot({ session: { initial: () => ({ step: 'start', tries: 0 }) } });
    bot.on('chatbot', (ctx) => {
      seen.push(`attempt ${ctx.attempt} reads ${ctx.session.step}/${ctx.session.tries}`);
      ctx.session.step = 'asked';
      ctx.session.tries += 1;
      if (ctx.payload.messageText === 'hi' && ctx.attempt < 3) throw new Error('reply failed');
    });
    const receiver = createReceiver(bot.handlers(), { retry: quickRetry(3) });
    await receiver.send('chatbot', say('chat-a', 'hi'));
    await receiver.idle();
    await receiver.send('chatbot', say('chat-a', 'again'));
    await receiver.idle();
    expect(seen).toEqual([
      'attempt 1 reads start/0',
      'attempt 2 reads start/0',
      'attempt 3 reads start/0',
      'attempt 1 reads asked/1',
    ]);
  });

  it('is saved when an error handler handled the error (the job succeeded)', async () => {
    const seen: number[] = [];
    const bot = createBot({ session: { initial: () => ({ n: 0 }) } });
    bot.on('chatbot', (ctx) => {
      seen.push(ctx.session.n);
      ctx.session.n += 1;
      throw new Error('handled below');
    });
    bot.catch(() => undefined);
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', say('chat-a', 'one'));
    await receiver.send('chatbot', say('chat-a', 'two'));
    await receiver.idle();
    expect(seen).toEqual([0, 1]);
  });

  it('is written only when it changed: not when untouched or unchanged; null deletes it', async () => {
    const { store, calls } = countingStore();
    const bot = createBot({ session: { store, initial: () => ({ name: '' }) } });
    bot.command('ignore', () => undefined);
    bot.command('read', (ctx) => void ctx.session.name);
    bot.command('name', (ctx) => {
      ctx.session.name = ctx.match;
    });
    bot.command('same', (ctx) => {
      ctx.session = { name: ctx.session.name };
    });
    bot.command('forget', (ctx) => {
      (ctx as { session: unknown }).session = null;
    });
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    for (const text of ['/ignore', '/read', '/name Ada', '/same', '/forget', '/forget', '/read']) {
      await receiver.send('chatbot', say('chat-a', text));
    }
    await receiver.idle();
    expect(calls.reads).toBe(7);
    expect(calls.writes).toEqual(['{"name":"Ada"}', undefined]);
    expect(store.read('chatbot:chat-a')).toBeUndefined();
  });

  it('refuses a value JSON cannot hold, failing the job', async () => {
    const deadLetters: DeadLetter[] = [];
    const bot = createBot({ session: { initial: (): unknown => ({}) } });
    bot.on('chatbot', (ctx) => {
      ctx.session = () => 'a function';
    });
    const receiver = createReceiver({ ...bot.handlers(), onDeadLetter: (dl) => void deadLetters.push(dl) });
    await receiver.send('chatbot', say('chat-a', 'hi'));
    await receiver.idle();
    expect(String(deadLetters[0]?.error)).toMatch(/^TypeError: ctx.session: expected a JSON value/);
  });

  it('starts again from initial when the stored record is not JSON, rather than failing the conversation for good', async () => {
    const store = createMemorySessionStore();
    store.write('chatbot:chat-a', '{not json', undefined);
    const bot = createBot({ session: { store, initial: () => ({ n: 0 }) } });
    bot.on('chatbot', (ctx) => {
      ctx.session.n += 1;
    });
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
    const receiver = createReceiver(bot.handlers(), { logger });
    await receiver.send('chatbot', say('chat-a', 'hi'));
    await receiver.idle();
    expect(store.read('chatbot:chat-a')).toMatchObject({ data: '{"n":1}' });
    expect(receiver.stats().chatbot.succeeded).toBe(1);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((line) => line.msg)).toEqual([
      'session record is not valid JSON: the session starts again from initial',
    ]);
    // The stored text is not quoted in the log.
    expect(lines.join('')).not.toContain('not json');
  });

  it('under a custom key outside the ordering, a lost race fails with SessionConflictError and the retry counts right', async () => {
    // Two conversations of one customer (chatbot and incoming) share a session by phone number:
    // they run at the same time, so both read the same version; the second write must fail.
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading = 0;
    const failures: unknown[] = [];
    const store = createMemorySessionStore();
    const bot = createBot({
      session: {
        store,
        initial: () => ({ messages: 0 }),
        getSessionKey: (ctx) =>
          ctx.type === 'chatbot'
            ? `customer:${String(ctx.payload.senderMsisdn)}`
            : ctx.type === 'incoming'
              ? `customer:${ctx.payload.sender}`
              : undefined,
      },
    });
    const count = async (ctx: { session: { messages: number }; attempt: number }) => {
      const before = ctx.session.messages;
      if (ctx.attempt === 1 && ++reading === 2) release();
      if (ctx.attempt === 1) await bothRead;
      ctx.session.messages = before + 1;
    };
    bot.on('chatbot', count);
    bot.on('incoming', count);
    const receiver = createReceiver(
      { ...bot.handlers(), onError: (error) => void failures.push(error) },
      { retry: quickRetry(3) },
    );
    const phone = '+27831234567';
    await receiver.send('chatbot', { ...say('chat-a', 'hi'), senderMsisdn: phone });
    await receiver.send('incoming', buildIncoming({ sender: phone }));
    await receiver.idle();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(SessionConflictError);
    expect(failures[0]).toMatchObject({ code: 'session_conflict', status: 409 });
    expect(receiver.stats().chatbot.succeeded + receiver.stats().incoming.succeeded).toBe(2);
    expect(store.read(`customer:${phone}`)?.data).toBe('{"messages":2}');
  });
});

describe('createMemorySessionStore', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.useFakeTimers({ doNotFake: ['performance'] });
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });
  const advance = (ms: number): void => {
    now += ms;
    jest.advanceTimersByTime(ms);
  };

  it('writes only over the version it was given, and never reuses a version', () => {
    const store = createMemorySessionStore();
    expect(store.write('k', '1', 'stale')).toBe(false);
    expect(store.write('k', '1', undefined)).toBe(true);
    const first = store.read('k') as { version: string };
    expect(store.write('k', '2', undefined)).toBe(false);
    expect(store.write('k', '2', first.version)).toBe(true);
    expect(store.write('k', '3', first.version)).toBe(false);
    const second = store.read('k') as { version: string };
    expect(store.write('k', undefined, second.version)).toBe(true);
    expect(store.read('k')).toBeUndefined();
    expect(store.write('k', '4', undefined)).toBe(true);
    expect((store.read('k') as { version: string }).version).not.toBe(first.version);
  });

  it('keeps at most max sessions, dropping the least recently used', () => {
    const store = createMemorySessionStore({ max: 2 });
    store.write('a', '1', undefined);
    store.write('b', '1', undefined);
    store.read('a');
    store.write('c', '1', undefined);
    expect([store.read('a')?.data, store.read('b')?.data, store.read('c')?.data]).toEqual([
      '1',
      undefined,
      '1',
    ]);
  });

  it('forgets a session ttlMs after its last write, not after its last read', () => {
    const store = createMemorySessionStore({ ttlMs: 10_000 });
    store.write('a', '1', undefined);
    advance(6_000);
    expect(store.read('a')?.data).toBe('1');
    advance(6_000);
    expect(store.read('a')).toBeUndefined();
  });

  it('checks its options', () => {
    expect(() => createMemorySessionStore({ max: 0 })).toThrow(
      new TypeError('max: expected a positive integer, got 0'),
    );
    expect(() => createMemorySessionStore({ ttlMs: -1 })).toThrow(
      new TypeError('ttlMs: expected a positive number, got -1'),
    );
    expect(() => createMemorySessionStore({ ttlMs: Number.NaN })).toThrow(
      /ttlMs: expected a positive number/,
    );
    expect(() => createMemorySessionStore({ maxx: 1 } as never)).toThrow(/did you mean max/);
  });
});
