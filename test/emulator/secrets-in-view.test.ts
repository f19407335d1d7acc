/*
 * Secrets out of view in the JSON control routes: `GET /_emulator`, `/_emulator/state` and
 * `/_emulator/snapshot` returned every user's API key (and the snapshot every password), where the
 * inspector shows the seed's keys only. They now show the seed's keys and mask the rest, unless
 * asked `?reveal=keys`; a snapshot to restore is taken with `?reveal=keys` (a masked one is
 * refused by a restore, naming `masked`). And `Host: localhost:1@evil.example` passed the Host
 * check (read as `localhost`) and was advertised by `/_emulator/openapi.json`.
 */
import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED } from './harness.js';

const LATER_KEY = 'emu-later-key-Zq9x-0123456789abcdef';
const LATER_PASSWORD = 'Zq9x-password-later';

/** An emulator with one user made after the seed (its key and password are credentials). */
async function withLaterUser(): Promise<Emulator> {
  const emulator = createEmulator();
  await request(emulator.listener)
    .post('/Messaging/SystemUsers')
    .set('authorization', SEED.supervisorKey)
    .send({ email: 'later@demo.test', apiKey: LATER_KEY, password: LATER_PASSWORD, liveChatRole: 'AGENT' })
    .expect(200);
  return emulator;
}

describe('API keys in the JSON control routes', () => {
  it.each(['/_emulator', '/_emulator/state'])(
    'GET %s shows the seed’s keys and masks a key made later',
    async (path) => {
      const emulator = await withLaterUser();
      const answer = await request(emulator.listener).get(path).set('accept', 'application/json').expect(200);
      const text = JSON.stringify(answer.body);
      expect(text).not.toContain(LATER_KEY);
      expect(text).toContain(SEED.supervisorKey);
      const later = (answer.body.users as { email: string; apiKey: string }[]).find(
        (user) => user.email === 'later@demo.test',
      );
      expect(later?.apiKey).toBe('****cdef');
      const revealed = await request(emulator.listener)
        .get(`${path}?reveal=keys`)
        .set('accept', 'application/json');
      expect(JSON.stringify(revealed.body)).toContain(LATER_KEY);
    },
  );

  it('POST /_emulator/reset and POST /_emulator/state answer the masked summary too', async () => {
    const emulator = await withLaterUser();
    const snapshot = (await request(emulator.listener).get('/_emulator/snapshot?reveal=keys').expect(200))
      .body;
    const restored = await request(emulator.listener).post('/_emulator/state').send(snapshot).expect(200);
    expect(JSON.stringify(restored.body)).not.toContain(LATER_KEY);
    const revealed = await request(emulator.listener)
      .post('/_emulator/state?reveal=keys')
      .send(snapshot)
      .expect(200);
    expect(JSON.stringify(revealed.body)).toContain(LATER_KEY);
  });
});

describe('GET /_emulator/snapshot', () => {
  it('masks keys made later and every password, and says so', async () => {
    const emulator = await withLaterUser();
    const answer = await request(emulator.listener).get('/_emulator/snapshot').expect(200);
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(LATER_KEY);
    expect(text).not.toContain(LATER_PASSWORD);
    expect(text).not.toMatch(/"password":"password"/);
    expect(answer.body.masked).toBe(true);
  });

  it('a masked snapshot is refused by a restore, naming `masked`; nothing changes', async () => {
    const emulator = await withLaterUser();
    const before = emulator.snapshot();
    const masked = (await request(emulator.listener).get('/_emulator/snapshot').expect(200)).body;
    const refused = await request(emulator.listener).post('/_emulator/state').send(masked);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'masked' });
    expect(refused.body.message).toContain('?reveal=keys');
    expect(() => emulator.restore(masked)).toThrow(/masked/);
    expect(emulator.snapshot()).toEqual(before);
  });

  it('?reveal=keys gives the whole snapshot, which round-trips', async () => {
    const emulator = await withLaterUser();
    const full = (await request(emulator.listener).get('/_emulator/snapshot?reveal=keys').expect(200)).body;
    expect(JSON.stringify(full)).toContain(LATER_KEY);
    expect(full.masked).toBeUndefined();
    const other = createEmulator();
    await request(other.listener).post('/_emulator/state').send(full).expect(200);
    expect(other.snapshot()).toEqual(emulator.snapshot());
    // the restored key works
    await request(other.listener)
      .get('/Messaging/api/v1/users/me')
      .set('authorization', LATER_KEY)
      .expect(200);
  });
});

describe('the Host check reads the whole header', () => {
  it.each([
    'localhost:1@evil.example',
    'localhost@evil.example',
    'localhost:1/evil.example',
    'localhost:abc',
    '127.0.0.1:80:80',
    'localhost evil.example',
    '[::1]evil.example',
    'localhost:123456',
  ])('refuses Host %j (403), and /_emulator/openapi.json does not advertise it', async (host) => {
    const emulator = createEmulator();
    const state = await request(emulator.listener).get('/_emulator/state').set('host', host);
    expect(state.status).toBe(403);
    const openapi = await request(emulator.listener).get('/_emulator/openapi.json').set('host', host);
    expect(openapi.status).toBe(403);
    expect(openapi.body.servers).toBeUndefined();
  });
});
