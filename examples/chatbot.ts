/**
 * A chatbot that answers customers: it receives v2 chatbot events and replies to each INCOMING
 * one. Here the reply goes to the emulator's bot-reply trigger over HTTP
 * (`POST /_emulator/bot-reply`); against the real platform, `sendReply` would call "Send an agent
 * message (v2)" with the event's chatParticipantId (see the interface documentation).
 *
 * Run (with a TypeScript runner): npx tsx examples/chatbot.ts — it starts the emulator and the
 * bot, plays a short conversation and prints it.
 *
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * (and jest's moduleNameMapper) point them at src/.
 */
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createWebhookRouter, type ChatbotEvent, type WebhookRouter } from 'messaging-webhooks';
import { createEmulator, DEFAULT_API_KEYS } from 'messaging-webhooks/emulator';

/** Sends the bot's answer into a chat. */
export type SendReply = (chatParticipantId: string, text: string) => Promise<void>;

/** The bot's brain: an answer for a customer's message. */
export function answerFor(event: ChatbotEvent): string {
  const text = (event.messageText ?? '').toLowerCase();
  if (event.messageType === 'LOCATION') return 'Thanks, I have your location.';
  if (/\b(hi|hello|hey)\b/.test(text)) return 'Hello! Ask me about your order, or type "agent" for a person.';
  if (text.includes('order')) return 'Your order is on its way and arrives tomorrow.';
  if (text.includes('agent')) return 'Connecting you to an agent...';
  return 'Sorry, I did not understand. Type "agent" to talk to a person.';
}

/** Replies through the emulator's control surface (the bot-reply trigger). */
export function emulatorReplySender(emulatorUrl: string): SendReply {
  return async (chatParticipantId, text) => {
    const response = await fetch(`${emulatorUrl}/_emulator/bot-reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chatParticipantId, messageText: text }),
    });
    // A failed reply throws, so the receiver retries the callback.
    if (!response.ok) throw new Error(`bot reply failed: ${response.status} ${await response.text()}`);
  };
}

/** The bot's webhook router: replies to INCOMING chatbot events, ignores its own OUTGOING ones. */
export function createChatbotRouter(sendReply: SendReply, onTurn?: (line: string) => void): WebhookRouter {
  return createWebhookRouter({
    onChatbot: async (event) => {
      onTurn?.(
        `${event.direction === 'INCOMING' ? 'customer' : 'bot     '}: ${event.messageText ?? `(${event.messageType ?? '?'})`}`,
      );
      // A human agent has the chat: the bot stays quiet (the platform stops sending with
      // chatbotStopOnAgentAssignment; this covers configurations without it).
      if (event.direction !== 'INCOMING' || event.assignedAgentId != null) return;
      await sendReply(event.chatParticipantId, answerFor(event));
    },
  });
}

/** Starts an app on 127.0.0.1 port 0; resolves with its server and URL. */
export async function listenLocally(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function main(): Promise<void> {
  const emulator = createEmulator({ retry: { attempts: 1 } });
  const emulatorUrl = await emulator.listen();
  const lines: string[] = [];
  const router = createChatbotRouter(emulatorReplySender(emulatorUrl), (line) => lines.push(line));
  const { server, url } = await listenLocally(express().use('/bot', router));

  // Configure the chatbot webhook through the platform API, v2 payloads, bot replies included.
  await fetch(`${emulatorUrl}/Messaging/MessagingClientWebHook`, {
    method: 'POST',
    headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
    body: JSON.stringify({
      chatbotWebhookURL: `${url}/bot/chatbot`,
      chatbotPayloadVersion: 'v2',
      chatbotIncludeOutgoing: true,
      chatbotStopOnAgentAssignment: true,
    }),
  });

  for (const text of ['Hi there', 'Where is my order?', 'agent please']) {
    emulator.customerMessage({ number: '+27820000001', from: '+27831234567', text });
    // Wait for the customer event, the bot's reply, and the reply's OUTGOING event.
    await emulator.idle();
    await router.idle();
    await emulator.idle();
    await router.idle();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await router.close();
  await emulator.close();
  server.close();
}

// Run only when executed directly, not when a test imports the module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
