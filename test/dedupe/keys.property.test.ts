// Properties of the default dedupe keys (issue 16): for every webhook type, distinct key tuples
// give distinct keys, equal payloads give equal keys, and a key's length does not depend on the
// payload. Fixed seed (FC_SEED overrides); fast-check prints the seed and path on failure.
import fc from 'fast-check';
import { DEDUPE_KEY_LENGTH, DEFAULT_DEDUPE_KEYS, digestDedupeKey } from '../../src/dedupe/index.js';
import type { WebhookPayloads, WebhookType } from '../../src/schemas/index.js';
import { fixtures } from '../../src/testing/index.js';

const SEED = Number(process.env.FC_SEED ?? 16_2026);
const RUNS = 400;
const settings = { seed: SEED, numRuns: RUNS };

/**
 * Strings over a small alphabet rich in separators and JSON metacharacters, so that tuples whose
 * parts merely shift a ':' or a quote between neighbours (the collisions of a joined key) are
 * common; plus any string, to cover length and Unicode.
 */
const part = fc.oneof(
  fc.string({ unit: fc.constantFrom(':', '"', '\\', ',', '[', ']', '-', 'a', '1'), maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
const optionalPart = fc.option(part, { nil: null });
const millis = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** Per type: an arbitrary of its key tuple, and the payload carrying that tuple. */
interface KeyCase<T extends WebhookType> {
  readonly tuple: fc.Arbitrary<readonly unknown[]>;
  readonly payload: (tuple: readonly unknown[]) => WebhookPayloads[T];
}

const CASES: { readonly [T in WebhookType]: KeyCase<T> } = {
  chatbot: {
    tuple: fc.tuple(part),
    payload: ([eventId]) => ({ ...fixtures.chatbot.v2.INCOMING, eventId: eventId as string }),
  },
  incoming: {
    // [reaction?, gstId, sentTime, text]: a reaction's key has three parts, any other message's one.
    tuple: fc.oneof(
      fc.tuple(fc.constant(true), part, part, optionalPart),
      fc.tuple(fc.constant(false), part, fc.constant(null), fc.constant(null)),
    ),
    payload: ([reaction, gstId, sentTime, text]) =>
      reaction === true
        ? ({
            ...fixtures.incoming.REACTION,
            gstId,
            sentTime,
            text,
          } as WebhookPayloads['incoming'])
        : ({ ...fixtures.incoming.TEXT, gstId } as WebhookPayloads['incoming']),
  },
  status: {
    tuple: fc.tuple(part, part),
    payload: ([gstId, status]) =>
      ({ ...fixtures.status.DELIVERED, gstId, status }) as WebhookPayloads['status'],
  },
  session: {
    tuple: fc.tuple(part, part, millis, optionalPart),
    payload: ([messagingNumber, statusType, timestamp, status]) =>
      ({
        ...fixtures.session.Connected,
        messagingNumber,
        statusType,
        timestamp,
        status,
      }) as WebhookPayloads['session'],
  },
  event: {
    tuple: fc.tuple(part, millis, optionalPart, optionalPart, optionalPart, optionalPart),
    payload: ([eventType, timestamp, messagingNumber, templateName, waId, oldNumber]) =>
      ({
        eventType,
        timestamp,
        messagingNumber,
        templateName,
        waId,
        oldNumber,
      }) as WebhookPayloads['event'],
  },
};

function keyOf<T extends WebhookType>(type: T, payload: WebhookPayloads[T]): string {
  const identity = DEFAULT_DEDUPE_KEYS[type](payload);
  if (identity === undefined) throw new Error(`no identity for a ${type} payload with every part`);
  return digestDedupeKey(type, identity);
}

const TYPES = Object.keys(CASES) as WebhookType[];

describe.each(TYPES)(`default dedupe key of %s (fast-check seed ${SEED})`, (type) => {
  const { tuple, payload } = CASES[type] as KeyCase<WebhookType>;

  it('gives distinct keys to distinct tuples', () => {
    fc.assert(
      fc.property(tuple, tuple, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        return keyOf(type, payload(a)) !== keyOf(type, payload(b));
      }),
      settings,
    );
  });

  it('gives equal keys to equal payloads (a redelivery, parsed again)', () => {
    fc.assert(
      fc.property(tuple, (a) => {
        const sent = payload(a);
        const redelivered = JSON.parse(JSON.stringify(sent)) as WebhookPayloads[WebhookType];
        return keyOf(type, sent) === keyOf(type, redelivered);
      }),
      settings,
    );
  });

  it('gives keys of one length, whatever the payload', () => {
    fc.assert(
      fc.property(tuple, (a) => {
        const key = keyOf(type, payload(a));
        return key.length === DEDUPE_KEY_LENGTH && /^[A-Za-z0-9_-]+$/.test(key);
      }),
      settings,
    );
  });
});

describe('dedupe keys across types', () => {
  it('gives one identity different keys in different types', () => {
    fc.assert(
      fc.property(
        part,
        fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 2, maxLength: 2 }),
        (identity, [a, b]) =>
          digestDedupeKey(a as WebhookType, identity) !== digestDedupeKey(b as WebhookType, identity),
      ),
      settings,
    );
  });
});

describe('dedupe keys as BullMQ jobIds', () => {
  it('are valid custom jobIds: no ":" and never an integer string', async () => {
    const { jobIdOf } = await import('../../src/redis/queues.js');
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), part, (type, identity) => {
        const dedupeKey = digestDedupeKey(type, identity);
        const jobId = jobIdOf({ dedupeKey } as Parameters<typeof jobIdOf>[0]);
        return jobId === dedupeKey && !jobId.includes(':') && `${parseInt(jobId, 10)}` !== jobId;
      }),
      settings,
    );
  });
});
