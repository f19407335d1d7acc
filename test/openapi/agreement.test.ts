import fc from 'fast-check';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { standaloneJsonSchema } from '../../src/openapi/index.js';
import { chatbotEventV1, chatbotEventV2, detectChatbotPayloadVersion } from '../../src/schemas/chatbot.js';
import { incomingMessage } from '../../src/schemas/incoming.js';
import { ENUM_FIELDS } from '../../src/schemas/parse.js';
import { partnerEvent } from '../../src/schemas/partner.js';
import { sessionStatusSchema } from '../../src/schemas/session.js';
import { statusUpdate } from '../../src/schemas/status.js';
import type { WebhookType } from '../../src/schemas/webhook-types.js';
import { allFixtures, buildChatbotEvent, fixtures, type NamedFixture } from '../../src/testing/index.js';
import { errorsOf, strictAjv } from './validator.js';

/**
 * The zod schemas and the generated JSON Schemas (the standalone files the package ships) give
 * the same verdict on every payload: the fixture corpus, named out-of-contract payloads, and
 * mutated fixtures from fast-check. A fixed seed (override with FC_SEED to explore).
 */
const SEED = Number(process.env.FC_SEED ?? 27_2026);
const RUNS = Number(process.env.FC_RUNS ?? 400);

interface PayloadSchema {
  readonly id: string;
  /** The receiver's zod verdict (the open union's branch-selecting safeParse where there is one). */
  readonly zod: (input: unknown) => boolean;
  /** The plain zod schema (`.schema` of an open union): must agree too. */
  readonly plain: (input: unknown) => boolean;
  readonly json: ValidateFunction;
}

const ajv = strictAjv();
const payloadSchema = (
  id: string,
  union: {
    safeParse(input: unknown): { success: boolean };
    schema: { safeParse(input: unknown): { success: boolean } };
  },
): PayloadSchema => ({
  id,
  zod: (input) => union.safeParse(input).success,
  plain: (input) => union.schema.safeParse(input).success,
  json: ajv.compile(standaloneJsonSchema(id)),
});

const SCHEMAS: readonly PayloadSchema[] = [
  payloadSchema('IncomingMessage', incomingMessage),
  payloadSchema('StatusUpdate', statusUpdate),
  payloadSchema('SessionStatus', {
    safeParse: (i) => sessionStatusSchema.safeParse(i),
    schema: sessionStatusSchema,
  }),
  payloadSchema('PartnerEvent', partnerEvent),
  payloadSchema('ChatbotEventV1', chatbotEventV1),
  payloadSchema('ChatbotEventV2', chatbotEventV2),
];
const byId = (id: string): PayloadSchema => SCHEMAS.find((s) => s.id === id) as PayloadSchema;

/** The JSON Schema of a fixture's own type (chatbot: the payload version it carries). */
function ownSchema({ type, payload }: NamedFixture): PayloadSchema {
  const ids: Record<Exclude<WebhookType, 'chatbot'>, string> = {
    incoming: 'IncomingMessage',
    status: 'StatusUpdate',
    session: 'SessionStatus',
    event: 'PartnerEvent',
  };
  if (type !== 'chatbot') return byId(ids[type]);
  return byId(detectChatbotPayloadVersion(payload) === 'v2' ? 'ChatbotEventV2' : 'ChatbotEventV1');
}

type Group = 'fixtures' | 'out-of-contract' | 'unlisted' | 'mutated';
/** Agreeing verdicts per group of payloads, over every payload × schema pair checked. */
const tally: Record<Group, { valid: number; invalid: number }> = {
  fixtures: { valid: 0, invalid: 0 },
  'out-of-contract': { valid: 0, invalid: 0 },
  unlisted: { valid: 0, invalid: 0 },
  mutated: { valid: 0, invalid: 0 },
};

/** Asserts zod (both forms) and JSON Schema agree on `input` for every payload schema. */
function expectAgreement(input: unknown, label: string, group: Group): void {
  for (const schema of SCHEMAS) {
    const zod = schema.zod(input);
    const plain = schema.plain(input);
    const json = schema.json(input);
    if (zod !== json || plain !== zod) {
      throw new Error(
        `${label} vs ${schema.id}: zod ${zod}, zod union ${plain}, JSON Schema ${json} (${errorsOf(schema.json)})\n` +
          JSON.stringify(input),
      );
    }
    tally[group][json ? 'valid' : 'invalid'] += 1;
  }
}

afterAll(() => {
  if (process.env.OPENAPI_REPORT === '1') {
    for (const [group, { valid, invalid }] of Object.entries(tally)) {
      process.stdout.write(`agreement ${group}: ${valid} valid + ${invalid} invalid verdicts, none differ\n`);
    }
  }
});

describe('the fixture corpus', () => {
  const corpus = allFixtures();

  it.each(corpus.map((f) => [f.name, f] as const))(
    '%s validates against its JSON Schema',
    (_name, fixture) => {
      const schema = ownSchema(fixture);
      expect({ valid: schema.json(fixture.payload), errors: errorsOf(schema.json) }).toEqual({
        valid: true,
        errors: '',
      });
    },
  );

  it('gets the same verdict from zod and JSON Schema, each fixture against all six payload schemas', () => {
    for (const fixture of corpus) expectAgreement(fixture.payload, fixture.name, 'fixtures');
    // every fixture passes its own schema and fails the others (v2 also passes v1: a superset)
    expect(tally.fixtures.valid).toBeGreaterThanOrEqual(corpus.length);
    expect(tally.fixtures.invalid).toBeGreaterThan(corpus.length * 4);
  });
});

/** Payloads outside the contract: both zod and the JSON Schema of `schema` refuse each. */
const OUT_OF_CONTRACT: readonly (readonly [string, string, unknown])[] = [
  ['TEXT without text', 'IncomingMessage', omit(fixtures.incoming.TEXT, 'text')],
  ['TEXT with null text', 'IncomingMessage', { ...fixtures.incoming.TEXT, text: null }],
  ['MEDIA without mediaUrl', 'IncomingMessage', omit(fixtures.incoming.MEDIA, 'mediaUrl')],
  ['LOCATION without longitude', 'IncomingMessage', omit(fixtures.incoming.LOCATION, 'longitude')],
  ['CONTACT with numeric text', 'IncomingMessage', { ...fixtures.incoming.CONTACT, text: 27 }],
  ['REACTION with an empty gstId', 'IncomingMessage', { ...fixtures.incoming.REACTION, gstId: '' }],
  ['incoming without sender', 'IncomingMessage', omit(fixtures.incoming.BUTTON, 'sender')],
  ['incoming with an empty sender', 'IncomingMessage', { ...fixtures.incoming.TEXT, sender: '' }],
  [
    'incoming without messageContentType',
    'IncomingMessage',
    omit(fixtures.incoming.TEXT, 'messageContentType'),
  ],
  ['messageContentType empty', 'IncomingMessage', { ...fixtures.incoming.TEXT, messageContentType: '' }],
  ['messageContentType a number', 'IncomingMessage', { ...fixtures.incoming.TEXT, messageContentType: 3 }],
  ['messageType a number', 'IncomingMessage', { ...fixtures.incoming.TEXT, messageType: 1 }],
  ['bodyParameters an array', 'IncomingMessage', { ...fixtures.incoming.BUTTON, bodyParameters: ['Thandi'] }],
  ['FAILED without errorCode', 'StatusUpdate', omit(fixtures.status.FAILED, 'errorCode')],
  [
    'FAILED with a null errorCodeString',
    'StatusUpdate',
    { ...fixtures.status.FAILED, errorCodeString: null },
  ],
  ['status without gstId', 'StatusUpdate', omit(fixtures.status.SENT, 'gstId')],
  ['status with a numeric readTime', 'StatusUpdate', { ...fixtures.status.READ, readTime: 1747214527000 }],
  ['session without statusType', 'SessionStatus', omit(fixtures.session.Connected, 'statusType')],
  ['session with a null statusType', 'SessionStatus', { ...fixtures.session.Connected, statusType: null }],
  [
    'session with an empty messagingNumber',
    'SessionStatus',
    { ...fixtures.session.Connected, messagingNumber: '' },
  ],
  [
    'session timestamp as a string',
    'SessionStatus',
    { ...fixtures.session.Connected, timestamp: '1747214527000' },
  ],
  ['USER_PREFERENCE without waId', 'PartnerEvent', omit(fixtures.event.USER_PREFERENCE, 'waId')],
  [
    'USER_PREFERENCE with a null preferenceValue',
    'PartnerEvent',
    { ...fixtures.event.USER_PREFERENCE, preferenceValue: null },
  ],
  [
    'TEMPLATE_STATUS_CHANGED with an empty templateName',
    'PartnerEvent',
    { ...fixtures.event.TEMPLATE_STATUS_CHANGED, templateName: '' },
  ],
  [
    'USER_CHANGED_NUMBER without newNumber',
    'PartnerEvent',
    omit(fixtures.event.USER_CHANGED_NUMBER, 'newNumber'),
  ],
  ['qualityRating a number', 'PartnerEvent', { ...fixtures.event.PHONE_QUALITY_CHANGED, qualityRating: 2 }],
  ['eventType null', 'PartnerEvent', { ...fixtures.event.USER_PREFERENCE, eventType: null }],
  ['chatbot without eventId', 'ChatbotEventV1', omit(fixtures.chatbot.v1.INCOMING, 'eventId')],
  [
    'chatbot with an empty chatParticipantId',
    'ChatbotEventV1',
    { ...fixtures.chatbot.v1.OUTGOING, chatParticipantId: '' },
  ],
  [
    'chatbot conversationClosed a string',
    'ChatbotEventV1',
    { ...fixtures.chatbot.v1.INCOMING, conversationClosed: 'no' },
  ],
  ['v2 INCOMING without senderUserId', 'ChatbotEventV2', omit(fixtures.chatbot.v2.INCOMING, 'senderUserId')],
  [
    'v2 OUTGOING without recipientUserId',
    'ChatbotEventV2',
    omit(fixtures.chatbot.v2.OUTGOING, 'recipientUserId'),
  ],
  [
    'v2 routedToAnotherTeam a string',
    'ChatbotEventV2',
    { ...fixtures.variants.chatbotV2AgentAssigned, routedToAnotherTeam: 'yes' },
  ],
  ['an array', 'IncomingMessage', [fixtures.incoming.TEXT]],
  ['a string', 'StatusUpdate', JSON.stringify(fixtures.status.SENT)],
  ['null', 'SessionStatus', null],
];

/** Values the documentation does not list, which the receiver accepts: both accept each. */
const UNLISTED_ACCEPTED: readonly (readonly [string, string, unknown])[] = [
  [
    'an unlisted messageContentType',
    'IncomingMessage',
    { sender: '+27825550143', messageContentType: 'STICKER' },
  ],
  ['an unlisted messageType', 'IncomingMessage', { ...fixtures.incoming.TEXT, messageType: 'MARKETING' }],
  ['an unlisted status', 'StatusUpdate', { gstId: 'b7e2a9d4', status: 'QUEUED' }],
  ['an unlisted statusType', 'SessionStatus', { ...fixtures.session.Connected, statusType: 'reconnecting' }],
  ['an unlisted session status string', 'SessionStatus', { ...fixtures.session.Connected, status: 'Paused' }],
  ['an unlisted eventType', 'PartnerEvent', { eventType: 'ACCOUNT_BANNED', messagingNumber: '+27215550100' }],
  [
    'an unlisted qualityRating',
    'PartnerEvent',
    { ...fixtures.event.PHONE_QUALITY_CHANGED, qualityRating: 'PURPLE' },
  ],
  ['an unlisted direction (v1)', 'ChatbotEventV1', { ...fixtures.chatbot.v1.INCOMING, direction: 'SYSTEM' }],
  [
    'an unlisted direction (v2), no BSUID',
    'ChatbotEventV2',
    omit({ ...fixtures.chatbot.v2.INCOMING, direction: 'SYSTEM' }, 'senderUserId'),
  ],
  ['an unlisted chatbot messageType', 'ChatbotEventV2', buildChatbotEvent({ messageType: 'POLL' })],
  [
    'a field the documentation does not list',
    'StatusUpdate',
    { ...fixtures.status.SENT, pricingCategory: 'service' },
  ],
];

describe('out-of-contract payloads', () => {
  it.each(OUT_OF_CONTRACT)('%s: refused by zod and by the JSON Schema of %s', (name, id, payload) => {
    const schema = byId(id);
    expect([schema.zod(payload), schema.json(payload)]).toEqual([false, false]);
    expectAgreement(payload, name, 'out-of-contract');
  });

  it.each(UNLISTED_ACCEPTED)('%s: accepted by zod and by the JSON Schema of %s', (name, id, payload) => {
    const schema = byId(id);
    expect([schema.zod(payload), schema.json(payload), errorsOf(schema.json)]).toEqual([true, true, '']);
    expectAgreement(payload, name, 'unlisted');
  });
});

describe('mutated fixtures (fast-check)', () => {
  /** Values a mutation sets: the documented enum values of every payload type, and hostile ones. */
  const DOCUMENTED = [...new Set(Object.values(ENUM_FIELDS).flatMap((table) => Object.values(table).flat()))];
  const value = fc.oneof(
    fc.constantFrom<unknown>(null, '', 0, -1, 1.5, true, false, [], {}, 'x', ...DOCUMENTED),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const KEYS = [...new Set(allFixtures().flatMap((f) => Object.keys(f.payload)))];
  type Mutation =
    | { readonly kind: 'delete'; readonly at: number }
    | { readonly kind: 'set'; readonly at: number; readonly value: unknown }
    | { readonly kind: 'add'; readonly key: string; readonly value: unknown };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value }),
    // a key of another payload type (a discriminator or a field that belongs elsewhere), or a new one
    fc.record({
      kind: fc.constant('add' as const),
      key: fc.oneof(fc.constantFrom(...KEYS), fc.string()),
      value,
    }),
  );
  const payload = fc
    .tuple(fc.constantFrom(...allFixtures()), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([fixture, mutations]) => {
      const mutated = structuredClone(fixture.payload) as Record<string, unknown>;
      for (const m of mutations) {
        const keys = Object.keys(mutated);
        if (m.kind === 'add') mutated[m.key] = m.value;
        else if (keys.length === 0) continue;
        else if (m.kind === 'delete') delete mutated[keys[m.at % keys.length] as string];
        else mutated[keys[m.at % keys.length] as string] = m.value;
      }
      return { name: `mutated ${fixture.name}`, payload: mutated };
    });

  it(`zod and JSON Schema agree on ${RUNS} mutated fixtures, against all six payload schemas`, () => {
    fc.assert(
      fc.property(payload, ({ name, payload: input }) => {
        // JSON is what arrives: a round trip drops what JSON cannot carry (e.g. -0 becomes 0)
        expectAgreement(JSON.parse(JSON.stringify(input)), name, 'mutated');
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const { valid, invalid } = tally.mutated;
    expect(valid + invalid).toBe(RUNS * SCHEMAS.length);
    // the mutations reach both verdicts often (not a corpus that only ever passes or fails)
    expect(Math.min(valid, invalid)).toBeGreaterThan(RUNS / 4);
  });
});

function omit<T extends object>(payload: T, key: string): Record<string, unknown> {
  const copy = { ...payload } as Record<string, unknown>;
  delete copy[key];
  return copy;
}
