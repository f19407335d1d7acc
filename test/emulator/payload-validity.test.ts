import request from 'supertest';
import {
  createEmulator,
  createSeededRandom,
  EmulatorError,
  type Emulator,
} from '../../src/emulator/index.js';
import {
  DELIVERY_STATUSES,
  MESSAGE_CONTENT_TYPES,
  SESSION_STATUS_STRINGS,
  parseWebhook,
} from '../../src/schemas/index.js';
import { SEED, startCaptureServer, type CaptureServer } from './harness.js';

/*
 * One source of truth: a long seeded random walk over every trigger (legal and illegal moves
 * alike), under both chatbot payload versions, and every payload that went out passes
 * parseWebhook with the version its configuration selects. Refused moves are EmulatorErrors,
 * never anything else.
 */

let capture: CaptureServer;
let emulator: Emulator;
beforeAll(async () => {
  capture = await startCaptureServer();
});
afterAll(async () => {
  await capture.close();
});
afterEach(async () => {
  await emulator.close();
});

const CUSTOMERS = ['+27831000001', '+27831000002', '+27831000003'];
const NUMBERS = [SEED.lite.msisdn, SEED.cloud.msisdn];

it.each(['v1', 'v2'] as const)(
  'every payload of a 300-step random walk passes the schemas (%s)',
  async (version) => {
    emulator = createEmulator({ retry: { attempts: 1 } });
    const response = await request(emulator.listener)
      .post('/Messaging/MessagingClientWebHook')
      .set('authorization', SEED.supervisorKey)
      .send({
        incomingMessageURL: `${capture.url}/incoming`,
        statusUpdateURL: `${capture.url}/status`,
        sessionStatusURL: `${capture.url}/session`,
        eventWebhookURL: `${capture.url}/event`,
        chatbotWebhookURL: `${capture.url}/chatbot`,
        chatbotIncludeOutgoing: true,
        chatbotPayloadVersion: version,
      });
    expect(response.status).toBe(200);

    const random = createSeededRandom(version === 'v1' ? 7 : 8);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const chats: string[] = [];
    const messages: string[] = [];
    const refused = new Map<string, number>();

    const MOVES: readonly (() => unknown)[] = [
      () =>
        chats.push(
          emulator.customerMessage({
            number: pick(NUMBERS),
            from: pick(CUSTOMERS),
            contentType: pick(MESSAGE_CONTENT_TYPES),
            text: pick(['hi', '', '👍']),
            reactedToGstId: 'gst-x',
            contact: { name: 'A', phone: '+1' },
            ...(random() < 0.5 ? { username: 'user' } : {}),
            ...(random() < 0.3 ? { quotedMessageId: 'q', quotedText: 'quoted' } : {}),
          }).chatParticipantId,
        ),
      () => emulator.botReply({ chatParticipantId: pick(chats), messageText: 'reply' }),
      () => emulator.botReply({ chatParticipantId: pick(chats), widgets: [{ type: 'text' }] }),
      () =>
        emulator.assignAgent({
          chatParticipantId: pick(chats),
          ...(random() < 0.5 ? { teamId: pick([SEED.teams.sales, SEED.teams.support]) } : {}),
          notify: true,
        }),
      () => emulator.unassignAgent({ chatParticipantId: pick(chats) }),
      () =>
        messages.push(
          emulator.sendMessage({
            number: pick(NUMBERS),
            to: pick(CUSTOMERS),
            voice: random() < 0.5,
            ...(random() < 0.5 ? { template: { name: 'tpl' } } : {}),
          }).message.gstId,
        ),
      () => emulator.updateMessageStatus({ gstId: pick(messages), status: pick(DELIVERY_STATUSES) }),
      () => emulator.sessionChange({ number: pick(NUMBERS), status: pick(SESSION_STATUS_STRINGS) }),
      () => emulator.flagNumber({ number: SEED.lite.msisdn, durationMs: 1000 }),
      () => emulator.advanceClock(Math.floor(random() * 2000)),
      () =>
        emulator.partnerEvent({
          messagingNumber: pick(NUMBERS),
          eventType: 'USER_PREFERENCE',
          waId: '27831000001',
          preferenceValue: pick(['stop', 'resume']),
        }),
    ];

    for (let step = 0; step < 300; step += 1) {
      try {
        pick(MOVES)();
      } catch (error) {
        expect(error).toBeInstanceOf(EmulatorError);
        const { code, status } = error as EmulatorError;
        expect(status).toBeLessThan(500);
        refused.set(code, (refused.get(code) ?? 0) + 1);
      }
    }
    await emulator.idle();

    const deliveries = emulator.deliveries();
    expect(deliveries.length).toBeGreaterThan(100);
    for (const entry of deliveries) {
      const parsed = parseWebhook(
        entry.type,
        entry.payload,
        entry.type === 'chatbot' ? { chatbotPayloadVersion: version } : {},
      );
      expect({ type: entry.type, issues: parsed.success ? [] : parsed.issues }).toEqual({
        type: entry.type,
        issues: [],
      });
      expect(parsed.success && parsed.unlisted).toEqual([]);
    }
    // the walk did exercise refusals too
    expect([...refused.keys()]).toEqual(expect.arrayContaining(['ILLEGAL_TRANSITION']));
  },
);
