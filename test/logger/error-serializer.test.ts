// The one way an error reaches a log line: an allowlist of its fields. Fed the real errors ioredis
// and BullMQ raise (a Redis with `requirepass` given a wrong password; a Redis under `maxmemory`
// with `noeviction` refusing BullMQ's add), no password and no payload field may appear in any
// line the library logs, with `redactLogs` on and off.
import express from 'express';
import { pino, type Logger } from 'pino';
import request from 'supertest';
import { createWebhookRouter } from '../../src/index.js';
import { createLibraryLogger, serializeError, withSafeErrors } from '../../src/logger.js';
import { createBullMQDispatcher, createRedisDedupeStore } from '../../src/redis/index.js';
import { fixtures } from '../../src/testing/index.js';
import { spawn } from 'node:child_process';
import { freePort, pingRedis, waitFor } from '../redis/helpers.js';
import { command, describeWithRedisServer } from '../redis/servers.js';

interface RedisServerProcess {
  readonly port: number;
  stop(): Promise<void>;
}

/** A private redis-server (no persistence) with `extra` arguments; the shared one is not touched. */
async function startRedisServer(port: number, extra: readonly string[]): Promise<RedisServerProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', () => undefined);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  // with requirepass, PING answers NOAUTH: the server is up all the same
  const up = await waitFor(async () => {
    const answer = await pingRedis(port);
    return answer.ok || /NOAUTH/.test(answer.reason);
  }, 10_000);
  if (!up) {
    await stop();
    throw new Error(`redis-server did not start on port ${port}`);
  }
  return { port, stop };
}

function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe('serializeError', () => {
  it('copies name, message, code and stack, and nothing else an error carries', () => {
    const error = Object.assign(new Error('Command failed'), {
      code: 'ERR_X',
      command: { name: 'auth', args: ['default', 'hunter2'] },
      args: ['hunter2'],
      options: { password: 'hunter2' },
      config: { headers: { authorization: 'hunter2' } },
      request: { body: 'hunter2' },
      data: { messageText: 'hunter2' },
      job: { data: 'hunter2' },
    });
    const serialized = serializeError(error) as Record<string, unknown>;
    expect(Object.keys(serialized).sort()).toEqual(['code', 'message', 'name', 'stack', 'type']);
    expect(serialized).toMatchObject({
      type: 'Error',
      name: 'Error',
      message: 'Command failed',
      code: 'ERR_X',
    });
    expect(JSON.stringify(serialized)).not.toContain('hunter2');
  });

  it('serializes the cause chain the same way, and stops at a cycle', () => {
    const root = Object.assign(new Error('root'), { command: { args: ['secret-arg'] } });
    const middle = new Error('middle', { cause: root });
    const top = new TypeError('top', { cause: middle });
    (root as { cause?: unknown }).cause = top; // a cycle
    const serialized = serializeError(top) as { cause: { cause: { message: string; cause: unknown } } };
    expect(serialized.cause.cause.message).toBe('root');
    expect(serialized.cause.cause.cause).toEqual({ message: '[cause chain cut]' });
    expect(JSON.stringify(serialized)).not.toContain('secret-arg');
  });

  it('keeps an AggregateError’s errors, each by the allowlist', () => {
    const inner = Object.assign(new Error('inner'), { options: { password: 'secret-opt' } });
    const serialized = serializeError(new AggregateError([inner], 'all failed')) as {
      errors: { message: string }[];
    };
    expect(serialized.errors.map((e) => e.message)).toEqual(['inner']);
    expect(JSON.stringify(serialized)).not.toContain('secret-opt');
  });

  it('does not lose the line to a throwing getter', () => {
    const error = new Error('odd');
    Object.defineProperty(error, 'code', {
      get() {
        throw new Error('getter');
      },
    });
    expect(serializeError(error)).toMatchObject({ message: 'odd' });
  });

  it.each([
    ['createLibraryLogger, redactLogs on', (logger: Logger) => createLibraryLogger({ logger }, 'test')],
    [
      'createLibraryLogger, redactLogs off',
      (logger: Logger) => createLibraryLogger({ logger, redactLogs: false }, 'test'),
    ],
    ['withSafeErrors (the emulator’s)', (logger: Logger) => withSafeErrors(logger)],
  ])('is the err and error serializer of %s, and of its children', (_name, make) => {
    const { logger, lines } = memoryLogger();
    const error = Object.assign(new Error('boom'), { command: { args: ['AUTH', 'hunter2'] } });
    const library = make(logger);
    library.error({ err: error }, 'as err');
    library.child({ requestId: 'r' }).warn({ error }, 'as error');
    library.error(error);
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).toContain('boom');
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});

const { describe: describeRedis } = describeWithRedisServer('the error serializer against real Redis errors');

describeRedis('the library’s log lines with real ioredis and BullMQ errors', () => {
  const PASSWORD = 'Zq9x-wrong-password-MARK';
  const SENDER = '+27839990001';
  const TEXT = 'Zq9x message text MARK';

  describe('a Redis with requirepass, given a wrong password', () => {
    let server: RedisServerProcess;
    beforeAll(async () => {
      server = await startRedisServer(await freePort(), ['--requirepass', 'the-right-one']);
    });
    afterAll(async () => {
      await server.stop();
    });

    it.each([true, false])(
      'logs the AUTH failure without the password (redactLogs: %s)',
      async (redactLogs) => {
        const { logger, lines } = memoryLogger();
        const store = createRedisDedupeStore({
          connection: { host: '127.0.0.1', port: server.port, password: PASSWORD },
          logger,
          redactLogs,
        });
        try {
          // ioredis raises the AUTH (HELLO … AUTH) failure with the command's arguments attached
          expect(
            await waitFor(async () => lines.some((l) => l.includes('redis connection error')), 15_000),
          ).toBe(true);
        } finally {
          await store.close();
        }
        const logged = lines.join('\n');
        expect(logged).toMatch(/WRONGPASS|invalid username-password/);
        expect(logged).not.toContain(PASSWORD);
        expect(logged).not.toContain('"command"');
      },
    );
  });

  describe('a Redis under maxmemory with noeviction, refusing BullMQ’s add', () => {
    let server: RedisServerProcess;
    beforeAll(async () => {
      server = await startRedisServer(await freePort(), ['--maxmemory-policy', 'noeviction']);
    });
    afterAll(async () => {
      await server.stop();
    });

    it.each([true, false])(
      'logs the refused enqueue without the job’s sender or text (redactLogs: %s)',
      async (redactLogs) => {
        const { logger, lines } = memoryLogger();
        const dispatcher = createBullMQDispatcher({
          connection: { host: '127.0.0.1', port: server.port },
          queueName: `mwtest-oom-${String(redactLogs)}`,
          logger,
          redactLogs,
        });
        const router = createWebhookRouter({ dispatcher, logger, redactLogs, onChatbot: () => undefined });
        const app = express().use(router);
        try {
          // the dispatcher is up (its scripts loaded) before memory runs out
          await request(app)
            .post('/chatbot')
            .send({ ...fixtures.chatbot.v1.INCOMING, eventId: `warm-${String(redactLogs)}` })
            .expect(200);
          await fill(server.port);
          const event = {
            ...fixtures.chatbot.v1.INCOMING,
            eventId: `oom-${String(redactLogs)}`,
            senderMsisdn: SENDER,
            messageText: TEXT,
          };
          await request(app).post('/chatbot').send(event).expect(503);
        } finally {
          await empty(server.port);
          await router.close(5000);
          await dispatcher.close();
        }
        const logged = lines.join('\n');
        expect(logged).toMatch(/enqueue failed/);
        expect(logged).toMatch(/OOM/);
        for (const secret of [SENDER, TEXT, 'senderMsisdn', 'messageText'])
          expect(logged).not.toContain(secret);
      },
    );
  });
});

/**
 * Puts the private server over its memory limit: `maxmemory` below what it already uses, so under
 * noeviction every write is refused with OOM (reads still answer).
 */
async function fill(port: number): Promise<void> {
  await command(port, 'CONFIG', 'SET', 'maxmemory', '1');
}

/** Lifts the limit again (so close() can write). */
async function empty(port: number): Promise<void> {
  await command(port, 'CONFIG', 'SET', 'maxmemory', '0');
}
