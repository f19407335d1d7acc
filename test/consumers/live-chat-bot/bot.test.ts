// examples/live-chat-bot.ts (copied here by scripts/consumers.sh) from the packed tarball, against
// the emulator over HTTP, on Vitest: the bot's answer is in the emulator's chat, sent with Send an
// agent message (v2); "bye" terminates the chat; with the Redis session store (127.0.0.1:6379;
// skipped with the reason when absent, unless REQUIRE_REDIS=1) a session survives a restart.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SessionStore, WebhookRouter } from 'messaging-webhooks';
import { createPlatformClient } from 'messaging-webhooks/client';
import { createEmulator, DEFAULT_API_KEYS } from 'messaging-webhooks/emulator';
import { createRedisSessionStore, type RedisSessionStore } from 'messaging-webhooks/redis';
import { settle } from 'messaging-webhooks/testing';
import { createLiveChatBot, createLiveChatRouter } from './live-chat-bot.js';

const NUMBER = '+27820000001'; // a number of the emulator's default seed
const emulator = createEmulator({ retry: { attempts: 1 } });
const server = createServer(express().use('/webhooks', (req, res, next) => router(req, res, next)));
let platform: ReturnType<typeof createPlatformClient>;
let router: WebhookRouter;

/** A bot (a new receiver) with `store`, in place of the running one: a restart at the same URL. */
async function startBot(store?: SessionStore): Promise<void> {
  await router?.close();
  router = createLiveChatRouter(createLiveChatBot(platform, store === undefined ? {} : { store }));
}

async function customerSays(from: string, text: string): Promise<string> {
  const { chatParticipantId } = emulator.customerMessage({ number: NUMBER, from, text });
  await settle(emulator, router);
  return chatParticipantId;
}

/** What the emulator's chat shows the bot said (its agent messages), oldest first. */
function answersIn(chatParticipantId: string): unknown[] {
  return [...emulator.state.listings.messages.values()]
    .filter((message) => message.chatParticipantId === chatParticipantId && message.agentMessage != null)
    .map((message) => message.agentMessage?.text);
}

beforeAll(async () => {
  platform = createPlatformClient({ baseUrl: await emulator.listen(), apiKey: DEFAULT_API_KEYS.supervisor });
  await startBot();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await platform.webhooks.create({
    chatbotWebhookURL: `${url}/webhooks/chatbot`,
    chatbotPayloadVersion: 'v2',
    chatbotStopOnAgentAssignment: true,
  });
});

afterAll(async () => {
  await router.close();
  await emulator.close();
  server.closeAllConnections();
  server.close();
});

test("the customer's text gets the bot's answer in the emulator's chat", async () => {
  const chat = await customerSays('+27831120001', 'Hi');
  await customerSays('+27831120001', 'Where is my order?');
  expect(answersIn(chat)).toEqual([
    'Hello! I am the shop assistant. What is your name?',
    'Your order is on its way and arrives tomorrow.',
  ]);
});

test('"bye" terminates the chat', async () => {
  const chat = await customerSays('+27831120002', 'bye');
  expect(answersIn(chat)).toEqual(['Goodbye! This chat is now closed.']);
  expect(emulator.chatParticipant(chat)?.conversationClosed).toBe(true);
});

const redisReason = await (async (): Promise<string | undefined> => {
  const client = new Redis({
    host: '127.0.0.1',
    port: 6379,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis on 127.0.0.1:6379 is unreachable (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
})();
if (redisReason !== undefined && process.env.REQUIRE_REDIS !== '1') {
  process.stdout.write(
    `skipping the Redis session test: ${redisReason} (set REQUIRE_REDIS=1 to fail instead)\n`,
  );
}

describe.skipIf(redisReason !== undefined && process.env.REQUIRE_REDIS !== '1')(
  'with the Redis session store',
  () => {
    const prefix = `consumer-live-chat:${process.pid}:`;
    const stores: RedisSessionStore[] = [];
    const redisStore = (): RedisSessionStore => {
      const store = createRedisSessionStore({ connection: { host: '127.0.0.1', port: 6379 }, prefix });
      stores.push(store);
      return store;
    };
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
      const redis = new Redis({ host: '127.0.0.1', port: 6379 });
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    test('the name the bot asked for survives a receiver restart', async () => {
      if (redisReason !== undefined) throw new Error(redisReason);
      await startBot(redisStore());
      const chat = await customerSays('+27831120003', 'Hi');
      await customerSays('+27831120003', 'Grace');
      await startBot(redisStore()); // a new receiver and Redis connection: nothing kept in memory
      await customerSays('+27831120003', 'Hi');
      expect(answersIn(chat).at(-1)).toBe('Welcome back, Grace! Ask me about your order, or type "agent".');
    });
  },
);
