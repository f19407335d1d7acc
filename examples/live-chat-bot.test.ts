/**
 * The live-chat bot example against the emulator, over real HTTP on 127.0.0.1 port 0: the bot's
 * answers reach the emulator's chat through Send an agent message (v2), "agent" hands the chat
 * over, "bye" terminates it, and with the Redis session store (127.0.0.1:6379; skipped with the
 * reason when absent, REQUIRE_REDIS=1 fails instead) what it learnt survives a receiver restart.
 *
 * Run: NODE_OPTIONS=--experimental-vm-modules npx jest examples/live-chat-bot
 */
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import type { SessionStore, WebhookRouter } from 'messaging-webhooks';
import { createPlatformClient, type PlatformClient } from 'messaging-webhooks/client';
import { createEmulator, DEFAULT_API_KEYS, type Emulator } from 'messaging-webhooks/emulator';
import { createRedisSessionStore, type RedisSessionStore } from 'messaging-webhooks/redis';
import { settle } from 'messaging-webhooks/testing';
import { deleteKeys, describeWithRedis, uniqueName } from '../test/redis/helpers.js';
import { createLiveChatBot, createLiveChatRouter } from './live-chat-bot.js';

const NUMBER = '+27820000001';
const ADA = '00000000-0000-4000-8000-000000000022';

let emulator: Emulator;
let platform: PlatformClient;
let server: Server;
/** The receiver the app forwards to: replaced to restart the bot without moving its URL. */
let router: WebhookRouter;

/** Starts a bot (a new receiver) with `store`, in place of the running one. */
async function startBot(store?: SessionStore): Promise<void> {
  await router?.close();
  router = createLiveChatRouter(createLiveChatBot(platform, store === undefined ? {} : { store }));
}

/** A customer message, and everything it causes (the bot's answers, their receipts) settled. */
async function customerSays(from: string, text: string): Promise<string> {
  const { chatParticipantId } = emulator.customerMessage({ number: NUMBER, from, text });
  await settle(emulator, router);
  return chatParticipantId;
}

/** The agent messages of a chat, as the emulator recorded them, oldest first. */
function answersIn(chatParticipantId: string): (string | null | undefined)[] {
  return [...emulator.state.listings.messages.values()]
    .filter((message) => message.chatParticipantId === chatParticipantId && message.agentMessage != null)
    .map((message) => message.agentMessage?.text);
}

beforeAll(async () => {
  emulator = createEmulator({ retry: { attempts: 1 } });
  const emulatorUrl = await emulator.listen();
  platform = createPlatformClient({ baseUrl: emulatorUrl, apiKey: DEFAULT_API_KEYS.supervisor });
  await startBot();
  server = createServer(express().use('/webhooks', (req, res, next) => router(req, res, next)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await platform.webhooks.create({
    chatbotWebhookURL: `${url}/webhooks/chatbot`,
    chatbotPayloadVersion: 'v2',
    chatbotStopOnAgentAssignment: true,
  });
});
afterAll(async () => {
  await router?.close();
  await emulator?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('examples/live-chat-bot.ts against the emulator', () => {
  it('greets, asks and remembers the name, answers by pattern: each answer is in the emulator’s chat', async () => {
    const customer = '+27831110001';
    const chat = await customerSays(customer, 'Hi');
    expect(answersIn(chat)).toEqual(['Hello! I am the shop assistant. What is your name?']);
    await customerSays(customer, 'Ada');
    await customerSays(customer, 'Where is my order?');
    await customerSays(customer, 'hello');
    expect(answersIn(chat)).toEqual([
      'Hello! I am the shop assistant. What is your name?',
      'Nice to meet you, Ada! Ask me about your order, or type "agent".',
      'Your order is on its way and arrives tomorrow.',
      'Welcome back, Ada! Ask me about your order, or type "agent".',
    ]);
    // sent as the API key's agent, delivered (the emulator's receipts)
    const last = [...emulator.state.listings.messages.values()].at(-1);
    expect(last).toMatchObject({
      status: 'DELIVERED',
      agentMessage: { sentByEmail: 'supervisor@demo.test' },
    });
    expect(emulator.chatParticipant(chat)?.conversationClosed).toBe(false);
  });

  it('"agent" hands the chat over: assigned, and the bot hears no more of it', async () => {
    const customer = '+27831110002';
    const chat = await customerSays(customer, 'I want a person');
    expect(answersIn(chat)).toEqual(['Connecting you to an agent...']);
    expect(emulator.chatParticipant(chat)?.assignedTo).toBe(ADA);
    // chatbotStopOnAgentAssignment: the agent has it now
    await customerSays(customer, 'Hi');
    expect(answersIn(chat)).toHaveLength(1);
  });

  it('"bye" terminates the chat', async () => {
    const customer = '+27831110003';
    const chat = await customerSays(customer, 'Hi');
    await customerSays(customer, 'Bye!');
    expect(answersIn(chat).at(-1)).toBe('Goodbye! This chat is now closed.');
    expect(emulator.chatParticipant(chat)).toMatchObject({
      conversationClosed: true,
      terminatedBy: 'supervisor@demo.test',
    });
    // the customer writing again opens a new chat
    expect(await customerSays(customer, 'Hi')).not.toBe(chat);
  });
});

const { describe: describeRedis, unreachable } = await describeWithRedis();

describeRedis('examples/live-chat-bot.ts with the Redis session store', () => {
  const prefix = `${uniqueName('live-chat')}:`;
  const stores: RedisSessionStore[] = [];
  const redisStore = (): RedisSessionStore => {
    const store = createRedisSessionStore({ connection: { host: '127.0.0.1', port: 6379 }, prefix });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await startBot();
    await Promise.all(stores.map((store) => store.close()));
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    await deleteKeys(redis, `${prefix}*`);
    await redis.quit();
  });

  it('remembers the customer’s name across a receiver restart', async () => {
    if (unreachable) throw new Error(unreachable);
    const customer = '+27831110004';
    await startBot(redisStore());
    const chat = await customerSays(customer, 'Hi');
    await customerSays(customer, 'Grace');
    // a new process: a new receiver, a new Redis connection, nothing kept in memory
    await startBot(redisStore());
    await customerSays(customer, 'Hi');
    expect(answersIn(chat).at(-1)).toBe('Welcome back, Grace! Ask me about your order, or type "agent".');
  });
});
