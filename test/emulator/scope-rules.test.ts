import { SEED, WEBHOOK_API, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Section "Webhook scope rules", one test per rule. Each test configures webhooks through the
 * emulator's API, sends customer messages on the demo client's two numbers, and checks which
 * receiver mount (a or b) got which callbacks — and that nothing else arrived.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
});
afterAll(async () => {
  await h.close();
});

const CUSTOMER = '+27831110000';

/** Sends one text message to `msisdn` and returns "<mount>:<type>:<receiver number>" for each callback. */
async function messageOn(...msisdns: string[]): Promise<string[]> {
  h.calls.length = 0;
  for (const msisdn of msisdns) h.emulator.customerMessage({ number: msisdn, from: CUSTOMER, text: 'hello' });
  await h.settle();
  expectAllDeliveriesValid(h.emulator);
  return h.calls
    .map(
      (call) =>
        `${call.receiver}:${call.type}:${String(call.payload.receiver ?? call.payload.receiverMsisdn)}`,
    )
    .sort();
}

const incomingOnly = (mount: 'a' | 'b') => ({ incomingMessageURL: h.urls(mount).incomingMessageURL });

const RULES: readonly { rule: number; name: string; run: () => Promise<void> }[] = [
  {
    rule: 1,
    name: 'the client default applies to every number without an override',
    async run() {
      await h.createConfig(incomingOnly('a'));
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `a:incoming:${SEED.lite.msisdn}`,
        `a:incoming:${SEED.cloud.msisdn}`,
      ]);
    },
  },
  {
    rule: 2,
    name: 'an override applies only to events of its own number',
    async run() {
      await h.createConfig({ messagingNumberId: SEED.lite.id, ...incomingOnly('b') });
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `b:incoming:${SEED.lite.msisdn}`,
      ]);
    },
  },
  {
    rule: 3,
    name: "the number's override wins over the client default",
    async run() {
      await h.createConfig({ ...h.urls('a') });
      await h.createConfig({ messagingNumberId: SEED.lite.id, ...h.urls('b') });
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `a:chatbot:${SEED.cloud.msisdn}`,
        `a:incoming:${SEED.cloud.msisdn}`,
        `b:chatbot:${SEED.lite.msisdn}`,
        `b:incoming:${SEED.lite.msisdn}`,
      ]);
    },
  },
  {
    rule: 4,
    name: 'an override with empty-string URLs silences its number while the rest keep the default',
    async run() {
      await h.createConfig({ ...h.urls('a') });
      const silent = Object.fromEntries(Object.keys(h.urls('b')).map((field) => [field, '']));
      await h.createConfig({ messagingNumberId: SEED.lite.id, ...silent });
      // chatbotWebhookURL is set on the default, so the cloud number also gets a chatbot event
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `a:chatbot:${SEED.cloud.msisdn}`,
        `a:incoming:${SEED.cloud.msisdn}`,
      ]);
      h.calls.length = 0;
      h.emulator.sendMessage({ number: SEED.lite.msisdn, to: CUSTOMER });
      h.emulator.sessionChange({ number: SEED.lite.msisdn, status: 'Connecting...' });
      h.emulator.partnerEvent({
        eventType: 'USER_PREFERENCE',
        messagingNumber: SEED.lite.msisdn,
        waId: '27831110000',
        preferenceValue: 'stop',
      });
      await h.settle();
      expect(h.calls).toEqual([]);
    },
  },
  {
    rule: 5,
    name: 'a second default or a second override for the same number is a 409, and the first stays in force',
    async run() {
      await h.createConfig(incomingOnly('a'));
      await h.createConfig({ messagingNumberId: SEED.lite.id, ...incomingOnly('b') });
      const secondDefault = await h
        .api()
        .post(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send(incomingOnly('b'));
      const secondOverride = await h
        .api()
        .post(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send({ messagingNumberId: SEED.lite.id, ...incomingOnly('a') });
      expect([secondDefault.status, secondOverride.status]).toEqual([409, 409]);
      expect(secondDefault.body).toMatchObject({ status: 'ERROR', code: 'CONFLICT' });
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `a:incoming:${SEED.cloud.msisdn}`,
        `b:incoming:${SEED.lite.msisdn}`,
      ]);
    },
  },
  {
    rule: 6,
    name: "an override for another client's number is a 403 and routes nothing",
    async run() {
      const foreign = await h
        .api()
        .post(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send({ messagingNumberId: SEED.foreign.id, ...incomingOnly('b') });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ status: 'ERROR', code: 'FORBIDDEN', field: 'messagingNumberId' });
      expect(await messageOn(SEED.foreign.msisdn, SEED.lite.msisdn)).toEqual([]);
    },
  },
  {
    rule: 7,
    name: 'messagingNumberId in an update is ignored: a default stays the default',
    async run() {
      const created = await h.createConfig(incomingOnly('a'));
      const updated = await h
        .api()
        .put(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send({ id: created.id, messagingNumberId: SEED.lite.id, ...incomingOnly('b') });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        id: created.id,
        messagingNumberId: null,
        messagingNumberMsisdn: null,
      });
      // still the default: both numbers use it, with the updated URL
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `b:incoming:${SEED.lite.msisdn}`,
        `b:incoming:${SEED.cloud.msisdn}`,
      ]);
    },
  },
  {
    rule: 8,
    name: 'deleting an override re-exposes the default; deleting the default keeps the overrides',
    async run() {
      const defaultRow = await h.createConfig(incomingOnly('a'));
      const override = await h.createConfig({ messagingNumberId: SEED.lite.id, ...incomingOnly('b') });
      const del = (id: unknown) =>
        h
          .api()
          .delete(`${WEBHOOK_API}/${String(id)}`)
          .set('authorization', SEED.supervisorKey);

      expect((await del(override.id)).status).toBe(200);
      expect(await messageOn(SEED.lite.msisdn)).toEqual([`a:incoming:${SEED.lite.msisdn}`]);

      await h.createConfig({ messagingNumberId: SEED.lite.id, ...incomingOnly('b') });
      expect((await del(defaultRow.id)).status).toBe(200);
      expect(await messageOn(SEED.lite.msisdn, SEED.cloud.msisdn)).toEqual([
        `b:incoming:${SEED.lite.msisdn}`,
      ]);
    },
  },
];

describe('webhook scope rules (delivered over HTTP to createWebhookRouter)', () => {
  it.each(RULES)('rule $rule: $name', async ({ run }) => {
    await run();
  });

  it('covers all eight documented rules', () => {
    expect(RULES.map((r) => r.rule)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
