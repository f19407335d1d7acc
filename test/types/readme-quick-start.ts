/**
 * The README's Quick start, verbatim between the markers, type-checked under the repository's
 * strict tsconfig (the bot answers through the real platform client: nothing is stubbed). Keep it
 * identical to the README block (test/types/readme-sync.test.ts compares them).
 */

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
    // ctx.delivery: the message's state after this receipt, applied in the documented order
    const state = ctx.delivery?.applied ? ctx.delivery.current : undefined;
    if (state !== undefined) ctx.logger.info({ gstId: receipt.gstId, state }, 'delivery state');
  },
  ...bot.handlers(), // onChatbot: each chatbot event through the bot's handlers
  onEvent: async (event, ctx) => {
    const optedOut = event.eventType === 'USER_PREFERENCE' && event.preferenceValue === 'stop';
    if (optedOut) ctx.logger.info('customer opted out');
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
