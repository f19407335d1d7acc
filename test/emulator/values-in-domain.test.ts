/*
 * Values within their domain at every entrance. The clock and every time it accepts are bounded to
 * what a Date holds (±8.64e15 ms) at each entrance (HTTP control routes, snapshots, createEmulator
 * options), checked by one schema; the error handler answers whatever happens while it answers;
 * nesting is bounded in every request body and snapshot; a restore is all or nothing.
 * Before: `POST /_emulator/clock/advance {"ms":1e300}` answered 200 and the next error answer threw
 * `RangeError: Invalid time value` in the error handler, which killed the process.
 */
import { connect } from 'node:net';
import request from 'supertest';
import {
  ClockValueError,
  createClock,
  createEmulator,
  createRealTimeClock,
  MAX_EMULATOR_TIME,
  SnapshotError,
  type EmulatorClock,
} from '../../src/emulator/index.js';
import type { RouteGroup } from '../../src/emulator/context.js';
import { BadRequestError } from '../../src/emulator/errors.js';
import { SEED } from './harness.js';

/** An array nested `depth` deep around `leaf`, built without recursion. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

describe('the clock at every entrance', () => {
  it.each([
    ['/_emulator/clock/advance', { ms: 1e300 }, 'ms'],
    ['/_emulator/clock/advance', { ms: -1 }, 'ms'],
    ['/_emulator/clock', { time: -9e15 }, 'time'],
    ['/_emulator/clock', { time: 1e300 }, 'time'],
    ['/_emulator/clock', { time: '2024' }, 'time'],
  ])('POST %s %j is a 400 naming %s, and the emulator answers on', async (path, body, field) => {
    const emulator = createEmulator({ clock: 1_700_000_000_000 });
    const refused = await request(emulator.listener).post(path).send(body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 'ERROR', code: 'BAD_REQUEST', field });
    expect(emulator.clock.now()).toBe(1_700_000_000_000);
    const next = await request(emulator.listener).get('/nope');
    expect(next.status).toBe(404);
    expect(next.body).toMatchObject({ status: 'ERROR', code: 'NOT_FOUND' });
  });

  it('refuses an advance that would take the clock past the last time a Date holds', async () => {
    const emulator = createEmulator({ clock: MAX_EMULATOR_TIME - 10 });
    const refused = await request(emulator.listener).post('/_emulator/clock/advance').send({ ms: 100 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'ms' });
    expect(emulator.clock.now()).toBe(MAX_EMULATOR_TIME - 10);
    await request(emulator.listener).post('/_emulator/clock/advance').send({ ms: 10 }).expect(200);
    expect(new Date(emulator.clock.now()).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('the JS clock refuses the same values with a ClockValueError (a TypeError), staying put', () => {
    const clock = createClock({ start: 0 });
    expect(() => clock.advance(1e300)).toThrow(ClockValueError);
    expect(() => clock.set(-9e15)).toThrow(TypeError);
    expect(() => clock.set(Number.NaN)).toThrow(ClockValueError);
    expect(() => createClock({ start: 1e300 })).toThrow(ClockValueError);
    expect(clock.now()).toBe(0);
  });

  it('a running clock set at the end of the range stays there', () => {
    let wall = 0;
    const clock = createRealTimeClock({ start: MAX_EMULATOR_TIME, source: () => wall });
    wall = 60_000;
    expect(clock.now()).toBe(MAX_EMULATOR_TIME);
  });

  it('createEmulator refuses a start time and a snapshot clock no Date holds', () => {
    expect(() => createEmulator({ clock: 1e300 })).toThrow(/clock must be .* got 1e\+300/);
    expect(() => createEmulator({ clock: -9e15 })).toThrow(TypeError);
    expect(() => createEmulator({ state: { version: 1, clock: 1e300 } })).toThrow(SnapshotError);
    expect(() => createEmulator({ state: { version: 1, clock: 1e300 } })).toThrow(/at clock:/);
  });

  it('POST /_emulator/state refuses a clock or a flag period no Date holds, naming the field', async () => {
    const emulator = createEmulator();
    const before = emulator.snapshot();
    const clock = await request(emulator.listener)
      .post('/_emulator/state')
      .send({ ...before, clock: 1e300 });
    expect(clock.status).toBe(400);
    expect(clock.body).toMatchObject({ field: 'clock' });
    const numbers = before.numbers.map((number) =>
      number.session === null ? number : { ...number, session: { ...number.session, flaggedUntil: 9e15 } },
    );
    const flagged = await request(emulator.listener)
      .post('/_emulator/state')
      .send({ ...before, numbers });
    expect(flagged.status).toBe(400);
    expect(flagged.body.field).toMatch(/^numbers\.\d+\.session\.flaggedUntil$/);
    expect(emulator.snapshot()).toEqual(before);
  });

  it('a partner event timestamp past what a Date holds is a 400', async () => {
    const emulator = createEmulator();
    const refused = await request(emulator.listener)
      .post('/_emulator/partner-events')
      .send({ eventType: 'TEMPLATE_APPROVED', messagingNumber: SEED.lite.msisdn, timestamp: 9e15 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'timestamp' });
  });
});

describe('the error handler cannot throw', () => {
  it('answers an error with a valid timestamp when an injected clock has left the range', async () => {
    const broken: EmulatorClock = { now: () => 1e300, advance: () => 1e300, set: (time) => time };
    const emulator = createEmulator({ clock: broken });
    const answer = await request(emulator.listener).get('/nope');
    expect(answer.status).toBe(404);
    expect(Number.isNaN(Date.parse(answer.body.timestamp as string))).toBe(false);
  });

  it('falls back to a fixed 500 JSON body when the error answer cannot be serialised', async () => {
    const unserialisable: RouteGroup = (router) =>
      router.add({
        method: 'GET',
        path: '/unserialisable',
        auth: false,
        handler() {
          throw new BadRequestError('odd details', { details: { count: 1n } });
        },
      });
    const emulator = createEmulator({ routeGroups: [unserialisable] });
    const answer = await request(emulator.listener).get('/unserialisable');
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      status: 'ERROR',
      code: 'INTERNAL',
      message: 'Internal emulator error',
    });
    await request(emulator.listener).get('/nope').expect(404);
  });
});

describe('nesting is bounded in every body and snapshot', () => {
  it('POST /_emulator/state refuses a 400,000-deep array in a free-form field, naming it; snapshots still work', async () => {
    const emulator = createEmulator();
    const before = emulator.snapshot();
    // the text itself: JSON.stringify of such a value overflows the stack, which is the bug
    const users = before.users.map((user, i) => (i === 0 ? { ...user, profile: 'DEEP' } : user));
    const body = JSON.stringify({ ...before, users }).replace(
      '"DEEP"',
      `${'['.repeat(400_000)}1${']'.repeat(400_000)}`,
    );
    const refused = await request(emulator.listener)
      .post('/_emulator/state')
      .set('content-type', 'application/json')
      .send(body);
    expect(refused.status).toBe(400);
    expect(refused.body.field).toMatch(/^users\.0\.profile\.0\.0/);
    expect(emulator.snapshot()).toEqual(before);
    await request(emulator.listener).get('/_emulator/snapshot?reveal=keys').expect(200);
  });

  it('a platform route refuses a body nested too deep before storing anything', async () => {
    const emulator = createEmulator();
    const answer = await request(emulator.listener)
      .post('/Messaging/api/v1/users')
      .set('authorization', SEED.supervisorKey)
      .send({ email: 'deep@demo.test', firstName: 'Deep', profile: nested(40) });
    expect(answer.status).toBe(400);
    expect(answer.body.field).toMatch(/^profile\.0\.0/);
    expect(JSON.stringify(emulator.snapshot())).not.toContain('deep@demo.test');
  });

  it('restore() and createEmulator({ state }) refuse a snapshot nested past 64 levels', () => {
    const emulator = createEmulator();
    const before = emulator.snapshot();
    const users = before.users.map((user, i) => (i === 0 ? { ...user, profile: nested(100) } : user));
    expect(() => emulator.restore({ ...before, users })).toThrow(
      /at users\.0\.profile\.0\.0.*nested deeper than 64/,
    );
    expect(() => createEmulator({ state: { ...before, users } })).toThrow(SnapshotError);
    expect(emulator.snapshot()).toEqual(before);
  });

  it('a free-form field nested to the snapshot bound is restored, snapshotted and restored over HTTP', async () => {
    const donor = createEmulator().snapshot();
    // the snapshot (1), its users (2), a user (3): the field's arrays fill depths 4 to 64
    const users = donor.users.map((user, i) => (i === 0 ? { ...user, profile: nested(61) } : user));
    const emulator = createEmulator();
    emulator.restore({ ...donor, users });
    const snapshot = (await request(emulator.listener).get('/_emulator/snapshot?reveal=keys').expect(200))
      .body;
    const other = createEmulator();
    await request(other.listener).post('/_emulator/state').send(snapshot).expect(200);
    expect(other.snapshot()).toEqual(emulator.snapshot());
    expect(JSON.stringify(other.snapshot())).toContain(JSON.stringify(nested(61)));
  });
});

describe('restore is all or nothing', () => {
  it('an injected clock refusing the snapshot’s time leaves state and clock as they were', () => {
    const inner = createClock({ start: 1_700_000_000_000 });
    const clock: EmulatorClock = {
      now: () => inner.now(),
      advance: (ms) => inner.advance(ms),
      set(time) {
        if (time > 1_800_000_000_000) throw new RangeError('this clock stops in 2027');
        return inner.set(time);
      },
    };
    const emulator = createEmulator({ clock });
    const donor = createEmulator({ seed: 'empty', clock: 1_900_000_000_000 });
    const before = emulator.snapshot();
    expect(() => emulator.restore(donor.snapshot())).toThrow(/stops in 2027/);
    expect(emulator.snapshot()).toEqual(before);
  });

  it('a snapshot failing at its last record leaves the emulator exactly as it was', () => {
    const emulator = createEmulator();
    const before = emulator.snapshot();
    const donor = createEmulator({ seed: 'empty' }).snapshot();
    const broken = {
      ...donor,
      ratingWidgets: [
        {
          id: 'w',
          chatParticipantId: 'c',
          agentId: null,
          triggeredBy: 'x',
          operation: 'terminateV2' as const,
          time: 't',
        },
        {
          id: 'w',
          chatParticipantId: 'c',
          agentId: null,
          triggeredBy: 'x',
          operation: 'terminateV2' as const,
          time: 't',
        },
      ],
    };
    expect(() => emulator.restore(broken)).toThrow(/ratingWidgets\.1/);
    expect(emulator.snapshot()).toEqual(before);
  });

  it('validates with the emulator’s own retention', () => {
    const emulator = createEmulator({ retention: { ratingWidgets: 1 } });
    const widget = (id: string) => ({
      id,
      chatParticipantId: 'c',
      agentId: null,
      triggeredBy: 'x',
      operation: 'terminateV2' as const,
      time: 't',
    });
    // the first 'a' is dropped by this emulator's retention before the second arrives
    emulator.restore({ version: 1, ratingWidgets: [widget('a'), widget('b'), widget('a')] });
    expect(emulator.snapshot().ratingWidgets.map((w) => w.id)).toEqual(['a']);
  });
});

describe('a request node:http cannot parse', () => {
  it.each([
    [
      'headers over the limit',
      `GET /_emulator/state?${'x'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      431,
    ],
    ['a malformed request line', 'GET /\u0001 HTTP/9\r\n\r\n', 400],
  ])('is answered in JSON by the emulator’s own server: %s', async (_what, raw, status) => {
    const emulator = createEmulator();
    const url = new URL(await emulator.listen());
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(raw));
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text)).on('error', reject);
      });
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(body)).toMatchObject({ status: 'ERROR', code: 'BAD_REQUEST' });
    } finally {
      await emulator.close();
    }
  });
});
