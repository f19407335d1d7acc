import request from 'supertest';
import {
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPE_OF,
  type SessionStatusString,
} from '../../src/schemas/index.js';
import { MAX_FLAG_PERIOD_MS } from '../../src/emulator/index.js';
import { SEED, T0, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Section "Session status (Lite sessions only)": the statusType table, the transition table,
 * Cloud numbers emitting none, and the flag period on the emulator clock.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
  await h.createConfig({
    sessionStatusURL: h.urls('a').sessionStatusURL,
    incomingMessageURL: h.urls('a').incomingMessageURL,
  });
});
afterAll(async () => {
  await h.close();
});

const lite = SEED.lite.msisdn;
const control = () => request(h.emulator.listener);

describe('session transition table', () => {
  const TRANSITIONS: readonly {
    from: readonly SessionStatusString[];
    to: SessionStatusString;
    ok: boolean;
  }[] = [
    { from: [], to: 'Connecting...', ok: true },
    { from: ['Connecting...'], to: 'Sync Complete. You can now send messages', ok: true },
    { from: ['Connecting...'], to: 'Paired Failed', ok: true },
    { from: ['Connecting...', 'Sync Complete. You can now send messages'], to: 'Logged Out', ok: true },
    { from: ['Connecting...', 'Paired Failed'], to: 'Connecting...', ok: true },
    { from: [], to: 'Sync Complete. You can now send messages', ok: false },
    { from: [], to: 'Disconnected', ok: false },
    { from: ['Connecting...', 'Disconnected'], to: 'Sync Complete. You can now send messages', ok: false },
  ];

  it.each(TRANSITIONS)('$from -> $to: allowed $ok', async ({ from, to, ok }) => {
    for (const status of from) {
      h.emulator.sessionChange({ number: lite, status });
      // a real session's steps are apart in time (and a receiver dedupes identical ones)
      h.emulator.advanceClock(1000);
    }
    await h.settle();
    h.calls.length = 0;
    const response = await control().post('/_emulator/sessions').send({ number: lite, status: to });
    await h.settle();
    if (ok) {
      expect(response.status).toBe(200);
      expect(h.calls.map((call) => call.payload)).toEqual([
        {
          messagingNumber: lite,
          status: to,
          statusType: SESSION_STATUS_TYPE_OF[to],
          timestamp: T0 + 1000 * from.length,
        },
      ]);
    } else {
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ status: 'ERROR', code: 'ILLEGAL_TRANSITION' });
      expect(h.calls).toEqual([]);
    }
  });

  it.each(SESSION_STATUS_STRINGS.map((status) => ({ status, statusType: SESSION_STATUS_TYPE_OF[status] })))(
    '"$status" is emitted with statusType $statusType',
    async ({ status, statusType }) => {
      // reach a state from which every statusType is allowed
      h.emulator.sessionChange({ number: lite, status: 'Connecting...' });
      h.emulator.advanceClock(1000);
      h.emulator.sessionChange({ number: lite, status });
      await h.settle();
      expectAllDeliveriesValid(h.emulator);
      expect(h.calls.at(-1)?.payload).toEqual({
        messagingNumber: lite,
        status,
        statusType,
        timestamp: T0 + 1000,
      });
    },
  );

  it('a statusType alone uses the canonical status string; a mismatching pair is a 400', async () => {
    const result = h.emulator.sessionChange({ number: lite, statusType: 'connecting' });
    expect(result.status).toBe('Connecting...');
    expect(() =>
      h.emulator.sessionChange({ number: lite, status: 'Logged Out', statusType: 'success' }),
    ).toThrow(expect.objectContaining({ status: 400, field: 'statusType' }));
  });
});

describe('Lite only', () => {
  it('a Cloud number has no session: the change is refused and nothing is emitted', async () => {
    const response = await control()
      .post('/_emulator/sessions')
      .send({ number: SEED.cloud.msisdn, status: 'Connecting...' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('SESSION_NOT_SUPPORTED');
    await h.settle();
    expect(h.calls).toEqual([]);
  });

  it('a disconnected Lite number stops all messaging until it reconnects', async () => {
    h.emulator.sessionChange({ number: lite, status: 'Connecting...' });
    h.emulator.sessionChange({ number: lite, status: 'Disconnected' });
    expect(() => h.emulator.customerMessage({ number: lite, from: '+27831115555', text: 'x' })).toThrow(
      expect.objectContaining({ status: 409 }),
    );
    h.emulator.advanceClock(1000);
    h.emulator.sessionChange({ number: lite, status: 'Connecting...' });
    h.emulator.customerMessage({ number: lite, from: '+27831115555', text: 'x' });
    await h.settle();
    expect(h.calls.map((call) => call.type)).toEqual(['session', 'session', 'session', 'incoming']);
  });
});

describe('flag period', () => {
  it('a flagged number is disconnected and cannot reconnect until the flag period ends on the emulator clock', async () => {
    h.emulator.sessionChange({ number: lite, status: 'Connecting...' });
    h.emulator.sessionChange({ number: lite, status: 'Sync Complete. You can now send messages' });
    const flagged = await control()
      .post('/_emulator/flag-number')
      .send({ number: lite, durationMs: 3_600_000 });
    expect(flagged.body).toMatchObject({ statusType: 'disconnected', flaggedUntil: T0 + 3_600_000 });

    const early = await control().post('/_emulator/sessions').send({ number: lite, status: 'Connecting...' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'NUMBER_FLAGGED', flaggedUntil: T0 + 3_600_000 });

    await control().post('/_emulator/clock/advance').send({ ms: 3_599_999 });
    expect(() => h.emulator.sessionChange({ number: lite, status: 'Connecting...' })).toThrow(
      expect.objectContaining({ code: 'NUMBER_FLAGGED' }),
    );
    h.emulator.advanceClock(1);
    h.emulator.sessionChange({ number: lite, status: 'Connecting...' });
    await h.settle();
    expect(h.calls.map((call) => [call.payload.statusType, call.payload.timestamp])).toEqual([
      ['connecting', T0],
      ['success', T0],
      ['disconnected', T0],
      ['connecting', T0 + 3_600_000],
    ]);
  });

  it('the flag period is at most 24 hours', () => {
    expect(() => h.emulator.flagNumber({ number: lite, durationMs: MAX_FLAG_PERIOD_MS + 1 })).toThrow(
      expect.objectContaining({ status: 400, field: 'durationMs' }),
    );
  });
});
