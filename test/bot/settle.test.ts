import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createBot, createWebhookRouter, type AgentMessagesApi } from '../../src/index.js';
import { createEmulator, DEFAULT_API_KEYS } from '../../src/emulator/index.js';
import { settle, SETTLE_MAX_PASSES } from '../../src/testing/index.js';

const NUMBER = '+27820000001'; // a number of the emulator's default seed

describe('settle(emulator, ...receivers)', () => {
  it('waits through replies that cause more deliveries until a whole pass finds everything idle', async () => {
    const emulator = createEmulator({ retry: { attempts: 1 } });
    // The bot answers through the emulator: each reply makes it deliver an OUTGOING chatbot event.
    const agentMessages: AgentMessagesApi = {
      send: (input) =>
        new Promise((resolve) => setTimeout(resolve, 10)).then(() =>
          emulator.botReply({ chatParticipantId: input.chatParticipantId, messageText: input.text }),
        ),
      uploadMedia: () => Promise.reject(new Error('not used')),
    };
    const outgoing: string[] = [];
    const bot = createBot({ agentMessages });
    bot.on('chatbot:INCOMING:TEXT', async (ctx) => {
      await ctx.reply(`You said: ${ctx.payload.messageText}`);
    });
    bot.on('chatbot:OUTGOING', async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      outgoing.push(String(ctx.payload.messageText));
    });
    const webhooks = createWebhookRouter({ token: 'test-token', ...bot.handlers() });
    const app = express();
    app.use('/webhooks', webhooks);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const api = await emulator.listen();
      const answer = await fetch(`${api}/Messaging/MessagingClientWebHook`, {
        method: 'POST',
        headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
        body: JSON.stringify({
          chatbotWebhookURL: `${appUrl}/webhooks/test-token/chatbot`,
          chatbotIncludeOutgoing: true,
          chatbotPayloadVersion: 'v2',
        }),
      });
      expect(answer.status).toBe(200);

      // One emulator.idle() and one webhooks.idle() return before the reply's delivery arrives.
      emulator.customerMessage({ number: NUMBER, from: '+27831234567', text: 'one' });
      await settle(emulator, webhooks);
      expect(outgoing).toEqual(['You said: one']);
      emulator.customerMessage({ number: NUMBER, from: '+27831234567', text: 'two' });
      emulator.customerMessage({ number: NUMBER, from: '+27831234568', text: 'three' });
      await settle(emulator, webhooks);
      expect([...outgoing].sort()).toEqual(['You said: one', 'You said: three', 'You said: two']);
      expect(webhooks.stats().chatbot).toMatchObject({ succeeded: 6, failed: 0 });
      // Settled means settled: a further wait finds nothing new.
      await settle(emulator, webhooks);
      expect(webhooks.stats().chatbot.succeeded).toBe(6);
    } finally {
      await emulator.close();
      await webhooks.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('rejects, naming the likely cause, when work keeps causing work', async () => {
    let listener: ((entry: unknown) => void) | undefined;
    const busyEmulator = {
      idle: async () => {
        listener?.({});
      },
      subscribeDeliveries: (next: (entry: unknown) => void) => {
        listener = next;
        return () => {
          listener = undefined;
        };
      },
    };
    let passes = 0;
    const receiver = {
      idle: async () => {
        passes += 1;
      },
      stats: () => ({}),
    };
    await expect(settle(busyEmulator, receiver)).rejects.toThrow(/still busy after 100 passes/);
    expect(passes).toBe(SETTLE_MAX_PASSES);
    expect(listener).toBeUndefined();
  });

  it('sees work a receiver did without the emulator (its counts changed) and passes again', async () => {
    const quiet = { idle: async () => undefined, subscribeDeliveries: () => () => undefined };
    let succeeded = 0;
    let idles = 0;
    const receiver = {
      idle: async () => {
        idles += 1;
        if (idles < 3) succeeded += 1;
      },
      stats: () => ({ succeeded }),
    };
    await settle(quiet, receiver);
    expect(idles).toBe(3);
  });

  it('rejects when the emulator says its idle() wait bound passed with deliveries pending', async () => {
    let subscribed = false;
    const stuck = {
      idle: async () => ({ idle: false, pending: 1 }),
      subscribeDeliveries: () => {
        subscribed = true;
        return () => {
          subscribed = false;
        };
      },
    };
    await expect(settle(stuck, { idle: async () => undefined, stats: () => ({}) })).rejects.toThrow(
      /deliveries pending when its idle\(\) wait bound passed/,
    );
    expect(subscribed).toBe(false);
  });
});
