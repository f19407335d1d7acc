// Dedupe identities are hashed over an encoding that keeps distinct strings distinct. UTF-8 turns
// every lone surrogate into U+FFFD, so chatbot eventIds "\ud800", "\udbff" and "\ufffd" were one
// key: the second and third events were answered as duplicates and never ran. Fixed seed
// (FC_SEED overrides); fast-check prints the seed and path on failure.
import fc from 'fast-check';
import request from 'supertest';
import { DEDUPE_KEY_LENGTH, digestDedupeKey } from '../../src/dedupe/index.js';
import { WEBHOOK_TYPES, type WebhookType } from '../../src/schemas/index.js';
import { fixtures } from '../../src/testing/index.js';
import { createTestReceiver } from '../helpers/receiver.js';

const SEED = Number(process.env.FC_SEED ?? 35_2026);
const RUNS = 500;
const settings = { seed: SEED, numRuns: RUNS };

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
/**
 * Strings rich in what UTF-8 confuses: lone high and low surrogates, a proper pair, U+FFFD and
 * its UTF-8 bytes read as Latin-1, NUL; plus any code units.
 */
const identity = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\ud83d\udc4d',
      '\ufffd',
      'ï¿½',
      '\u0000',
      'a',
    ),
    maxLength: 6,
  }),
  fc.string({ unit: codeUnit, maxLength: 12 }),
);

describe(`dedupe identities with lone surrogates (fast-check seed ${SEED}, ${RUNS} runs)`, () => {
  it('gives "\\ud800", "\\udbff" and "\\ufffd" three keys', () => {
    const keys = ['\ud800', '\udbff', '\ufffd'].map((id) => digestDedupeKey('chatbot', id));
    expect(new Set(keys).size).toBe(3);
  });

  it('keeps the key of a well-formed identity as it was (UTF-8 of type NUL identity)', async () => {
    const { sha256Base64url } = await import('../../src/util/sha256.js');
    expect(digestDedupeKey('chatbot', 'evt-1 👍')).toBe(sha256Base64url('chatbot\0evt-1 👍'));
  });

  it('gives distinct identities distinct keys, per type and across types', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WEBHOOK_TYPES),
        fc.constantFrom(...WEBHOOK_TYPES),
        identity,
        identity,
        (typeA: WebhookType, typeB: WebhookType, a: string, b: string) => {
          fc.pre(typeA !== typeB || a !== b);
          return digestDedupeKey(typeA, a) !== digestDedupeKey(typeB, b);
        },
      ),
      settings,
    );
  });

  it('gives an identity and its UTF-8 twin (lone surrogates swapped for U+FFFD or another) distinct keys', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
    fc.assert(
      fc.property(
        fc.constantFrom(...WEBHOOK_TYPES),
        identity,
        fc.array(fc.constantFrom('\ufffd', '\ud800', '\udbff', '\udc00', '\udfff'), {
          minLength: 1,
          maxLength: 6,
        }),
        (type: WebhookType, a: string, swaps: string[]) => {
          let i = 0;
          const twin = a.replace(lone, () => swaps[i++ % swaps.length]!);
          // different strings with the same bytes in UTF-8 (what the key used to hash); a swap that
          // completes a surrogate pair changes the bytes and is not a twin
          fc.pre(twin !== a && Buffer.from(twin, 'utf8').equals(Buffer.from(a, 'utf8')));
          return digestDedupeKey(type, a) !== digestDedupeKey(type, twin);
        },
      ),
      settings,
    );
  });

  it('gives an identity the same key every time, of one length', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WEBHOOK_TYPES), identity, (type: WebhookType, id: string) => {
        const key = digestDedupeKey(type, id);
        return key === digestDedupeKey(type, `${id}`) && key.length === DEDUPE_KEY_LENGTH;
      }),
      settings,
    );
  });

  it('runs three chatbot events whose eventIds differ only in a lone surrogate', async () => {
    const { app, router, calls } = createTestReceiver();
    const answers = [];
    for (const eventId of ['\ud800', '\udbff', '\ufffd']) {
      const response = await request(app)
        .post('/webhooks/chatbot')
        .send({
          ...fixtures.chatbot.v1.INCOMING,
          eventId,
          chatParticipantId: `chat-${eventId.charCodeAt(0)}`,
        });
      answers.push([response.status, (response.body as { duplicate?: boolean }).duplicate ?? false]);
    }
    await router.idle();
    expect(answers).toEqual([
      [200, false],
      [200, false],
      [200, false],
    ]);
    expect(calls.map((call) => (call.payload as { eventId: string }).eventId)).toEqual([
      '\ud800',
      '\udbff',
      '\ufffd',
    ]);
    await router.close();
  });
});
