import { randomUUID } from 'node:crypto';
import { Composer, createBot, type DeadLetter } from '../../src/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { createReceiver, quickRetry } from './helpers.js';

const customerSays = (messageText: string) =>
  buildChatbotEvent({ chatParticipantId: randomUUID(), messageText, messageType: 'TEXT' });

/** Records the receiver's failure hooks: every failed attempt, and dead letters. */
function failureLog() {
  const attempts: { message: string; attempt: number; willRetry: boolean }[] = [];
  const deadLetters: DeadLetter[] = [];
  return {
    attempts,
    deadLetters,
    hooks: {
      onError: (error: unknown, ctx: { attempt: number; willRetry: boolean }) =>
        void attempts.push({
          message: (error as Error).message,
          attempt: ctx.attempt,
          willRetry: ctx.willRetry,
        }),
      onDeadLetter: (deadLetter: DeadLetter) => void deadLetters.push(deadLetter),
    },
  };
}

describe('errors in a handler chain', () => {
  it('without an error handler, a throw anywhere fails the job: retried per retry, the whole chain again, then dead-lettered', async () => {
    const ran: string[] = [];
    const failure = new Error('downstream API is down');
    const bot = createBot();
    bot.use(async (ctx, next) => {
      ran.push(`middleware attempt ${ctx.attempt}`);
      await next();
    });
    bot.on('chatbot', () => void ran.push('first'));
    bot.on('chatbot', () => {
      throw failure;
    });
    bot.on('chatbot', () => void ran.push('never'));
    const log = failureLog();
    const receiver = createReceiver({ ...bot.handlers(), ...log.hooks }, { retry: quickRetry(3) });
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(ran).toEqual([
      'middleware attempt 1',
      'first',
      'middleware attempt 2',
      'first',
      'middleware attempt 3',
      'first',
    ]);
    expect(log.attempts).toEqual([
      { message: 'downstream API is down', attempt: 1, willRetry: true },
      { message: 'downstream API is down', attempt: 2, willRetry: true },
      { message: 'downstream API is down', attempt: 3, willRetry: false },
    ]);
    expect(log.deadLetters).toHaveLength(1);
    expect(log.deadLetters[0]!.error).toBe(failure);
    expect(log.deadLetters[0]!.attempts).toBe(3);
  });

  it('an error handler receives the error as thrown and the event’s context; returning handles it: the job succeeds', async () => {
    const failure = new Error('bad input');
    const received: unknown[] = [];
    const bot = createBot();
    bot.on('chatbot', () => {
      throw failure;
    });
    bot.catch(async (error, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      received.push(
        error,
        ctx.type,
        ctx.attempt,
        ctx.type === 'chatbot' ? ctx.payload.messageText : undefined,
      );
    });
    const log = failureLog();
    const receiver = createReceiver({ ...bot.handlers(), ...log.hooks }, { retry: quickRetry(3) });
    await receiver.send('chatbot', customerSays('hello'));
    await receiver.idle();
    expect(received).toEqual([failure, 'chatbot', 1, 'hello']);
    expect(received[0]).toBe(failure);
    expect(log.attempts).toEqual([]);
    expect(receiver.stats().chatbot).toMatchObject({ succeeded: 1, failed: 0, deadLettered: 0 });
  });

  it('an error handler that throws fails the job with what it threw: retried, then dead-lettered', async () => {
    let handled = 0;
    const bot = createBot();
    bot.on('chatbot', () => {
      throw new Error('flaky');
    });
    bot.catch((error, ctx) => {
      handled += 1;
      if (ctx.attempt < 2) throw error;
    });
    const log = failureLog();
    const receiver = createReceiver({ ...bot.handlers(), ...log.hooks }, { retry: quickRetry(3) });
    await receiver.send('chatbot', customerSays('hello'));
    await receiver.idle();
    // Rethrown on attempt 1 (retried), handled on attempt 2.
    expect(handled).toBe(2);
    expect(log.attempts).toEqual([{ message: 'flaky', attempt: 1, willRetry: true }]);
    expect(receiver.stats().chatbot).toMatchObject({ succeeded: 1, failed: 1, deadLettered: 0 });
  });

  it('a composer’s error handler is a boundary: its own errors stop there and what follows it still runs; later errors pass through', async () => {
    const ran: string[] = [];
    const orders = new Composer();
    orders.on('chatbot', () => {
      throw new Error('orders service down');
    });
    orders.on('chatbot', () => void ran.push('rest of orders'));
    orders.catch((error) => void ran.push(`orders caught: ${(error as Error).message}`));
    const bot = createBot();
    bot.use(orders);
    bot.hears('hi', () => void ran.push('greeting'));
    bot.hears('fail', () => {
      throw new Error('after the composer');
    });
    bot.catch((error) => void ran.push(`bot caught: ${(error as Error).message}`));
    const receiver = createReceiver(bot.handlers(), { concurrency: 1 });
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.send('chatbot', customerSays('fail'));
    await receiver.idle();
    expect(ran).toEqual([
      'orders caught: orders service down',
      'greeting',
      'orders caught: orders service down',
      'bot caught: after the composer',
    ]);
  });

  it('a composer’s middleware error after its next() is handled without running what follows twice', async () => {
    const ran: string[] = [];
    const audit = new Composer();
    audit.use(async (_ctx, next) => {
      await next();
      throw new Error('audit write failed');
    });
    audit.catch((error) => void ran.push(`caught: ${(error as Error).message}`));
    const bot = createBot();
    bot.use(audit);
    bot.on('chatbot', () => void ran.push('handler'));
    const receiver = createReceiver(bot.handlers());
    await receiver.send('chatbot', customerSays('hi'));
    await receiver.idle();
    expect(ran).toEqual(['handler', 'caught: audit write failed']);
  });
});
