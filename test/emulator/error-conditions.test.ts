import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED, WEBHOOK_API } from './harness.js';

/*
 * Section "Errors": the 401 response and the "Other conditions" table (the webhook rows; the
 * getCurrentClientUsers 403 belongs to the user-management routes), plus the 400 for bad
 * bodies the issue asks for. Every error has the same JSON body, and a refused request changes
 * nothing.
 */

let emulator: Emulator;
beforeEach(async () => {
  emulator = createEmulator({ retry: { attempts: 1 } });
  // one default and one override already exist
  for (const body of [{ incomingMessageURL: 'https://a.example' }, { messagingNumberId: SEED.lite.id }]) {
    const response = await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send(body);
    expect(response.status).toBe(200);
  }
});

const ERRORS: readonly {
  status: number;
  condition: string;
  key?: string;
  body: Record<string, unknown>;
  code: string;
}[] = [
  { status: 401, condition: 'no API key', body: {}, code: 'UNAUTHORIZED' },
  { status: 401, condition: 'unknown API key', key: 'who-knows', body: {}, code: 'UNAUTHORIZED' },
  {
    status: 403,
    condition: "webhook create with a messagingNumberId not linked to the caller's client",
    key: SEED.supervisorKey,
    body: { messagingNumberId: SEED.foreign.id, incomingMessageURL: '' },
    code: 'FORBIDDEN',
  },
  {
    status: 403,
    condition: 'webhook create with an unknown messagingNumberId',
    key: SEED.supervisorKey,
    body: { messagingNumberId: 'no-such-number' },
    code: 'FORBIDDEN',
  },
  {
    status: 409,
    condition: 'creating a second client default',
    key: SEED.supervisorKey,
    body: { statusUpdateURL: 'https://b.example' },
    code: 'CONFLICT',
  },
  {
    status: 409,
    condition: 'a second override for the same (client, number) pair',
    key: SEED.supervisorKey,
    body: { messagingNumberId: SEED.lite.id, statusUpdateURL: 'https://b.example' },
    code: 'CONFLICT',
  },
  {
    status: 400,
    condition: 'a body field of the wrong type',
    key: SEED.supervisorKey,
    body: { chatbotIncludeOutgoing: 'true' },
    code: 'BAD_REQUEST',
  },
];

describe('error conditions table (POST MessagingClientWebHook)', () => {
  it.each(ERRORS)('$status when $condition', async ({ status, key, body, code }) => {
    const before = emulator.state.webhookConfigs.size;
    let req = request(emulator.listener).post(WEBHOOK_API);
    if (key !== undefined) req = req.set('authorization', key);
    const response = await req.send(body);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.body).toEqual(
      expect.objectContaining({
        status: 'ERROR',
        message: expect.any(String),
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        code,
      }),
    );
    expect(emulator.state.webhookConfigs.size).toBe(before);
  });

  it('another client can still create its own default (uniqueness is per client)', async () => {
    const response = await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.otherClientKey)
      .send({ incomingMessageURL: 'https://other.example' });
    expect(response.status).toBe(200);
  });

  it('a disabled user is signed out: their key answers 401', async () => {
    const user = emulator.state.users.get(SEED.users.supervisor);
    if (user === undefined) throw new Error('seed changed');
    user.disabled = true;
    const response = await request(emulator.listener)
      .get(`${WEBHOOK_API}/list`)
      .set('authorization', SEED.supervisorKey);
    expect(response.status).toBe(401);
  });

  it('reset with a seed referring to an unknown client is a 400 and leaves the state as it was', async () => {
    const before = emulator.describe();
    const response = await request(emulator.listener)
      .post('/_emulator/reset')
      .send({ seed: { users: [{ clientRef: 'ghost', email: 'g@x', apiKey: 'g' }] } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'seed', message: expect.stringMatching(/ghost/) });
    expect(emulator.describe()).toEqual(before);
    expect(emulator.state.webhookConfigs.size).toBe(2);
  });
});
