import request from 'supertest';
import { DELIVERY_STATUSES, DELIVERY_TRANSITIONS, type DeliveryStatus } from '../../src/schemas/index.js';
import { SEED, T0, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Section "Outbound message delivery status": every row of the transition table is accepted and
 * emits one status webhook with the fields it sets; every other (from, to) pair is refused with
 * a clear error and emits nothing.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
  await h.createConfig({ statusUpdateURL: h.urls('a').statusUpdateURL });
});
afterAll(async () => {
  await h.close();
});

const CUSTOMER = '+27831112222';

/** The path from ACCEPTED to each state. */
const PATH_TO: Readonly<Record<DeliveryStatus, readonly DeliveryStatus[]>> = {
  ACCEPTED: [],
  SENT: ['SENT'],
  DELIVERED: ['SENT', 'DELIVERED'],
  READ: ['SENT', 'DELIVERED', 'READ'],
  PLAYED: ['SENT', 'DELIVERED', 'READ', 'PLAYED'],
  FAILED: ['SENT', 'FAILED'],
};

async function messageAt(status: DeliveryStatus, voice: boolean): Promise<string> {
  const { message } = h.emulator.sendMessage({ number: SEED.cloud.msisdn, to: CUSTOMER, voice });
  for (const next of PATH_TO[status]) h.emulator.updateMessageStatus({ gstId: message.gstId, status: next });
  await h.settle();
  h.calls.length = 0;
  return message.gstId;
}

const TIME_FIELDS = ['deliveryTime', 'readTime', 'playedTime'] as const;

describe('legal transitions (one per documented row)', () => {
  it.each(DELIVERY_TRANSITIONS)(
    '$from -> $to emits a status webhook setting $sets',
    async ({ from, to, sets }) => {
      const gstId = await messageAt(from, true);
      h.emulator.advanceClock(60_000);
      h.emulator.updateMessageStatus({ gstId, status: to });
      await h.settle();
      expectAllDeliveriesValid(h.emulator);
      expect(h.calls.map((call) => call.type)).toEqual(['status']);
      const payload = h.calls[0]?.payload ?? {};
      expect(payload).toMatchObject({
        gstId,
        status: to,
        sender: SEED.cloud.msisdn,
        receiver: CUSTOMER,
        recipientUserId: expect.any(String),
      });
      const setAt = new Date(T0 + 60_000).toISOString();
      for (const field of sets) {
        if (field === 'errorCode') expect(payload.errorCode).toMatch(/^\d+$/);
        else if (field === 'errorCodeString') expect(payload.errorCodeString).toEqual(expect.any(String));
        else expect(payload[field]).toBe(setAt);
      }
      // error fields only on FAILED
      if (to !== 'FAILED') expect(payload).not.toHaveProperty('errorCode');
      // earlier timestamps are kept, later ones stay omitted (null fields are omitted)
      for (const field of TIME_FIELDS) {
        if (!(sets as readonly string[]).includes(field) && payload[field] !== undefined) {
          expect(payload[field]).not.toBe(setAt);
        }
      }
    },
  );

  it('sending emits ACCEPTED with sendTime, and the full voice path emits each state once, in order', async () => {
    const { message } = h.emulator.sendMessage({ number: SEED.cloud.msisdn, to: CUSTOMER, voice: true });
    for (const status of PATH_TO.PLAYED) h.emulator.updateMessageStatus({ gstId: message.gstId, status });
    await h.settle();
    expect(h.calls.map((call) => call.payload.status)).toEqual(['ACCEPTED', ...PATH_TO.PLAYED]);
    expect(h.calls[0]?.payload.sendTime).toBe(new Date(T0).toISOString());
  });

  it('FAILED carries the errorCode and errorCodeString given', async () => {
    const gstId = await messageAt('SENT', false);
    h.emulator.updateMessageStatus({
      gstId,
      status: 'FAILED',
      errorCode: '131026',
      errorCodeString: 'Undeliverable',
    });
    await h.settle();
    expect(h.calls[0]?.payload).toMatchObject({
      status: 'FAILED',
      errorCode: '131026',
      errorCodeString: 'Undeliverable',
    });
  });
});

describe('illegal transitions are refused with a clear error and emit nothing', () => {
  const legal = new Set(DELIVERY_TRANSITIONS.map((t) => `${t.from}->${t.to}`));
  const ILLEGAL = DELIVERY_STATUSES.flatMap((from) =>
    DELIVERY_STATUSES.filter((to) => !legal.has(`${from}->${to}`)).map((to) => ({ from, to, voice: true })),
  );
  // PLAYED is for voice messages only
  const CASES = [...ILLEGAL, { from: 'READ' as const, to: 'PLAYED' as const, voice: false }];

  it.each(CASES)('$from -> $to (voice: $voice): 409 over /_emulator', async ({ from, to, voice }) => {
    const gstId = await messageAt(from, voice);
    const response = await request(h.emulator.listener)
      .post(`/_emulator/messages/${gstId}/status`)
      .send({ status: to });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      status: 'ERROR',
      code: 'ILLEGAL_TRANSITION',
      field: 'status',
      from,
      to,
    });
    expect(response.body.message).toContain(`${from} -> ${to}`);
    expect(h.emulator.message(gstId)?.status).toBe(from);
    await h.settle();
    expect(h.calls).toEqual([]);
  });

  it('has a case for each of the 31 pairs outside the table', () => {
    expect(CASES).toHaveLength(DELIVERY_STATUSES.length ** 2 - DELIVERY_TRANSITIONS.length + 1);
  });

  it('error fields on a non-FAILED status are a 400', async () => {
    const gstId = await messageAt('ACCEPTED', false);
    expect(() => h.emulator.updateMessageStatus({ gstId, status: 'SENT', errorCode: '1' })).toThrow(
      expect.objectContaining({ status: 400, field: 'errorCode' }),
    );
  });

  it('an unknown gstId is a 404', async () => {
    const response = await request(h.emulator.listener)
      .post('/_emulator/messages/nope/status')
      .send({ status: 'SENT' });
    expect(response.status).toBe(404);
  });
});
