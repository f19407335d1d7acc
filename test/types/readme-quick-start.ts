/**
 * The README's Quick start, verbatim between the markers, type-checked under the repository's
 * strict tsconfig with string-typed stand-ins for the user's own functions (the bot answers through
 * the real platform client: nothing of the library is stubbed). Keep it identical
 * to the README block (test/types/readme-sync.test.ts compares them).
 */
declare function saveDeliveryState(gstId: string, state: string): Promise<void>;
declare function optOut(waId: string): Promise<void>;

// README Quick start: begin
import express from 'express';
import { pino } from 'pino';
import { createBot, createWebhookRouter, spillToJsonl } from '../../src/index.js';
import { createPlatformClient } from '../../src/client/index.js';

// The platform's API (or the emulator's: `npx messaging-webhooks emulator` and its seeded key)
const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010',
  apiKey: process.env.API_KEY ?? 'emu-supervisor-key',
});

// The chatbot: handlers by filter, text and middleware (docs/bots.md). ctx.reply sends an agent
// message (v2) into the chat, as the agent the API key belongs to.
const bot = createBot({ agentMessages: platform.agentMessages });
bot.on('chatbot:INCOMING:TEXT', async (ctx) => {
  await ctx.reply(`You said: ${ctx.payload.messageText}`); // messageText: a string here
});

const webhooks = createWebhookRouter({
  token: process.env.WEBHOOK_TOKEN, // configure https://you.example/webhooks/<token>/chatbot on the platform
  logger: pino(),
  onUnfinished: spillToJsonl('.spill/unfinished.jsonl'), // what close() could not run in time
  onIncoming: async (message, ctx) => {
    // ctx.logger already carries the webhook type, request id and attempt
    ctx.logger.info({ contentType: message.messageContentType }, 'customer message');
  },
  onStatus: async (receipt, ctx) => {
    if (ctx.delivery?.applied) await saveDeliveryState(receipt.gstId, ctx.delivery.current);
  },
  ...bot.handlers(), // onChatbot: each chatbot event through the bot's handlers
  onEvent: async (event) => {
    if (event.eventType === 'USER_PREFERENCE' && event.preferenceValue === 'stop') await optOut(event.waId);
  },
});

const app = express();
app.use('/webhooks', webhooks); // POST /webhooks/incoming, /status, /session, /events, /chatbot and /
const server = app.listen(3000);

process.on('SIGTERM', () => {
  server.close();
  void webhooks.close(10_000); // 503 for new requests, waits for queued callbacks
});
// README Quick start: end
