import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import express from 'express';
import { createWebhookRouter } from '../../src/index.js';
import { createBullMQDispatcher, createWorker } from '../../src/redis/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { describeWithRedis, freePort, pingRedis, SHARED_REDIS_PORT, uniqueName, waitFor } from './helpers.js';

/**
 * Gap 9 of issue 16: a Redis with neither AOF nor RDB snapshots drops every queued job answered
 * 200 when it restarts. The dispatcher and the worker check at start-up: a warning, or with
 * `requirePersistence: true` a refusal. The shared Redis runs with `--save "" --appendonly no`
 * (the warning path); private servers give the quiet paths and a Redis whose CONFIG is renamed.
 */
const { describe: describeRedis, unreachable } = await describeWithRedis();

function memoryLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const persistenceLines = (lines: readonly { msg: string }[]) =>
  lines.filter((line) => /persist/i.test(line.msg));

/** A private redis-server with `args` on a free port; stopped with SIGKILL. */
async function startServer(args: readonly string[]) {
  const port = await freePort();
  // Its own directory: AOF and RDB files of parallel servers must not meet.
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'no', '--dir', dir, ...args],
    { stdio: 'ignore' },
  );
  child.once('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  if (!(await waitFor(async () => (await pingRedis(port)).ok, 10_000))) {
    await stop();
    throw new Error(`redis-server ${args.join(' ')} did not start on ${port}`);
  }
  return { port, stop };
}

// Options only this change adds, passed through a variable so the file compiles before it.
const REQUIRE = { requirePersistence: true } as object;

describeRedis('Redis persistence check at start-up', () => {
  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
  });

  const shared = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

  it('warns when Redis persists nothing (the shared Redis: save "", appendonly no)', async () => {
    const { logger, lines } = memoryLogger();
    const dispatcher = createBullMQDispatcher({
      connection: shared,
      queueName: uniqueName('persist'),
      logger,
    });
    await dispatcher.ready();
    await dispatcher.close();
    const warnings = persistenceLines(lines);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40 });
    expect(warnings[0]!.msg).toMatch(/appendonly no/);
    expect(warnings[0]!.msg).toMatch(/docs\/redis\.md/);
  });

  it('refuses with requirePersistence: ready() rejects and the router answers 503, never 200', async () => {
    const { logger } = memoryLogger();
    const dispatcher = createBullMQDispatcher({
      connection: shared,
      queueName: uniqueName('persist'),
      logger,
      ...REQUIRE,
    });
    await expect(dispatcher.ready()).rejects.toMatchObject({
      name: 'RedisPersistenceError',
      code: 'redis_not_persistent',
    });
    const router = createWebhookRouter({ dispatcher, onChatbot: () => undefined });
    const app = express().use('/webhooks', router);
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(503);
    await router.close();
  });

  it('a worker with requirePersistence does not start', async () => {
    const { logger } = memoryLogger();
    const worker = createWorker({
      connection: shared,
      queueName: uniqueName('persist'),
      handlers: { onChatbot: () => undefined },
      logger,
      ...REQUIRE,
    });
    await expect(worker.ready()).rejects.toMatchObject({ name: 'RedisPersistenceError' });
    await worker.close(1000);
  });

  it('rejects a requirePersistence that is not a boolean, naming the option', () => {
    expect(() =>
      createBullMQDispatcher({ connection: shared, ...({ requirePersistence: 'yes' } as object) }),
    ).toThrow(/requirePersistence/);
  });

  describe.each([
    ['AOF on', ['--appendonly', 'yes', '--save', '']],
    ['RDB snapshots on', ['--appendonly', 'no', '--save', '60 1000']],
    [
      'AOF on, CONFIG renamed (INFO tells)',
      ['--appendonly', 'yes', '--save', '', '--rename-command', 'CONFIG', ''],
    ],
  ])('a private Redis with %s', (_label, args) => {
    it('logs no persistence warning and starts with requirePersistence', async () => {
      const server = await startServer(args);
      try {
        const { logger, lines } = memoryLogger();
        const connection = { host: '127.0.0.1', port: server.port };
        const dispatcher = createBullMQDispatcher({ connection, logger, ...REQUIRE });
        await dispatcher.ready();
        await dispatcher.close();
        const worker = createWorker({ connection, handlers: {}, logger, ...REQUIRE });
        await worker.ready();
        await worker.close(1000);
        expect(persistenceLines(lines)).toEqual([]);
      } finally {
        await server.stop();
      }
    });
  });

  it('warns that persistence could not be checked when CONFIG is renamed and AOF is off', async () => {
    const server = await startServer(['--appendonly', 'no', '--save', '', '--rename-command', 'CONFIG', '']);
    try {
      const { logger, lines } = memoryLogger();
      const connection = { host: '127.0.0.1', port: server.port };
      const dispatcher = createBullMQDispatcher({ connection, logger });
      await dispatcher.ready();
      await dispatcher.close();
      const warnings = persistenceLines(lines);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/could not be checked/);
      const refusing = createBullMQDispatcher({ connection, logger, ...REQUIRE });
      await expect(refusing.ready()).rejects.toMatchObject({ name: 'RedisPersistenceError' });
      await refusing.close();
    } finally {
      await server.stop();
    }
  });
});
