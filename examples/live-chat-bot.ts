/**
 * A live-chat bot written with the bot API: it greets the customer, answers by pattern, asks a
 * question and remembers the answer in `ctx.session`, hands the chat over to an agent, and closes
 * the chat when the customer says "bye". It answers with Send an agent message (v2) through the
 * typed platform client (`ctx.reply`), so the same code talks to the platform or to the emulator.
 *
 * Run (with a TypeScript runner): npx tsx examples/live-chat-bot.ts — it starts the emulator and
 * the bot, plays a short conversation and prints it. Tests: examples/live-chat-bot.test.ts.
 *
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * (and jest's moduleNameMapper) point them at src/.
 */
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createBot,
  createWebhookRouter,
  type Bot,
  type SessionStore,
  type WebhookRouter,
} from 'messaging-webhooks';
import { createPlatformClient, type PlatformClient } from 'messaging-webhooks/client';

/** What the bot remembers of a conversation. */
export interface LiveChatSession {
  /** The question the bot asked and waits an answer for. */
  awaiting?: 'name';
  /** The customer's name, once they told it. */
  name?: string;
}

/** Options of {@link createLiveChatBot}. */
export interface LiveChatBotOptions {
  /** Where conversations are kept (the Redis store across restarts). @default in memory */
  readonly store?: SessionStore;
  /** The agent a handover assigns (a user id). @default the first available AGENT of the client */
  readonly agentId?: string;
}

/**
 * Hands a chat over to an agent. The documentation's way to set assignedTo is the chat participant
 * update (merge rule 4): fetch the participant, set assignedTo, send the whole object back (the
 * chat stays open: conversationClosed is sent as it is, false).
 */
export async function handOver(
  platform: PlatformClient,
  chatParticipantId: string,
  agentId?: string,
): Promise<string> {
  const agent =
    agentId ??
    (await platform.users.list()).find((user) => user.liveChatRole === 'AGENT' && user.availabilityStatus)
      ?.id;
  if (agent === undefined) throw new Error('No available agent to hand the chat over to');
  const current = await platform.chatParticipants.get(chatParticipantId);
  await platform.chatParticipants.terminateChatParticipantChat({ ...current, assignedTo: { id: agent } });
  return agent;
}

/** The bot: its handlers, in the order they are tried. */
export function createLiveChatBot(
  platform: PlatformClient,
  options: LiveChatBotOptions = {},
): Bot<LiveChatSession> {
  const bot = createBot({
    agentMessages: platform.agentMessages,
    session: {
      initial: (): LiveChatSession => ({}),
      ...(options.store === undefined ? {} : { store: options.store }),
    },
  });

  bot.hears(/^(bye|goodbye)\b/i, async (ctx) => {
    await ctx.reply('Goodbye! This chat is now closed.');
    // Terminate a chat (v2): the actor is the agent the API key belongs to
    await platform.chatParticipants.terminate(ctx.payload.chatParticipantId);
  });
  bot.hears(/\b(agent|human|person)\b/i, async (ctx) => {
    await ctx.reply('Connecting you to an agent...');
    await handOver(platform, ctx.payload.chatParticipantId, options.agentId);
  });
  bot.hears(/^(hi|hello|hey)\b/i, async (ctx) => {
    if (ctx.session.name !== undefined) {
      await ctx.reply(`Welcome back, ${ctx.session.name}! Ask me about your order, or type "agent".`);
      return;
    }
    ctx.session.awaiting = 'name';
    await ctx.reply('Hello! I am the shop assistant. What is your name?');
  });
  bot.hears(/\border\b/i, (ctx) => ctx.reply('Your order is on its way and arrives tomorrow.'));

  // Only texts no handler above took: the answer to a question, else a fallback.
  bot.on('chatbot:INCOMING:TEXT').otherwise(async (ctx) => {
    if (ctx.session.awaiting === 'name') {
      const name = ctx.payload.messageText.trim();
      ctx.session = { name };
      await ctx.reply(`Nice to meet you, ${name}! Ask me about your order, or type "agent".`);
      return;
    }
    await ctx.reply('Sorry, I did not understand. Say "hi", ask about your order, or type "agent".');
  });
  return bot;
}

/** The bot's receiver: its handlers mounted on an Express router. */
export function createLiveChatRouter(bot: Bot<LiveChatSession>): WebhookRouter {
  return createWebhookRouter({ token: false, ...bot.handlers() });
}

async function main(): Promise<void> {
  const { createEmulator, DEFAULT_API_KEYS } = await import('messaging-webhooks/emulator');
  const { settle } = await import('messaging-webhooks/testing');
  const emulator = createEmulator({ retry: { attempts: 1 } });
  const emulatorUrl = await emulator.listen();
  const platform = createPlatformClient({ baseUrl: emulatorUrl, apiKey: DEFAULT_API_KEYS.supervisor });
  const router = createLiveChatRouter(createLiveChatBot(platform));
  const server: Server = createServer(express().use('/webhooks', router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await platform.webhooks.create({
    chatbotWebhookURL: `${url}/webhooks/chatbot`,
    chatbotPayloadVersion: 'v2',
    chatbotStopOnAgentAssignment: true,
  });

  const number = '+27820000001';
  const from = '+27831234567';
  for (const text of ['Hi', 'Ada', 'Where is my order?', 'bye']) {
    const { chatParticipantId } = emulator.customerMessage({ number, from, text });
    await settle(emulator, router);
    const answers = [...emulator.state.listings.messages.values()].filter(
      (message) => message.chatParticipantId === chatParticipantId && message.agentMessage != null,
    );
    process.stdout.write(`customer: ${text}\nbot     : ${answers.at(-1)?.agentMessage?.text ?? '(none)'}\n`);
  }
  await router.close();
  await emulator.close();
  server.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
}
