/*
 * Authentication point 7: the nine credential fields are returned only by the deprecated
 * operations. Every api/v1 response body (successes and errors, every operation) is walked at
 * any depth; none may carry a credential field. The users and client are seeded with every
 * credential set, so a renderer that copied one through would be caught.
 */
import { createEmulator } from '../../../src/emulator/index.js';
import { CREDENTIAL_FIELDS } from '../../../src/schemas/index.js';
import request from 'supertest';
import { findKeys, IDS, KEYS, seedWithEveryCredential, SU, V1 } from './fixtures.js';

describe('no api/v1 response carries a credential field', () => {
  it('walks every api/v1 response body at any depth', async () => {
    const emulator = createEmulator({ seed: seedWithEveryCredential() });
    const api = () => request.agent(emulator.listener);
    const sup = KEYS.supervisor;
    const responses: { name: string; status: number; body: unknown }[] = [];
    const record = async (name: string, pending: request.Test) => {
      const res = await pending;
      responses.push({ name, status: res.status, body: res.body });
      return res;
    };

    await record('me', api().get(`${V1}/me`).set('authorization', sup));
    await record('list', api().get(V1).set('authorization', sup));
    const created = await record(
      'create',
      api().post(V1).set('authorization', sup).send({ email: 'n@demo.test' }),
    );
    const newId = (created.body as { id: string }).id;
    await record(
      'create (clientRef)',
      api().post(V1).set('authorization', sup).send({ email: 'm@demo.test', clientRef: 'demo' }),
    );
    await record('update', api().put(V1).set('authorization', sup).send({ id: IDS.bob, lastName: 'B' }));
    await record('page', api().get(`${V1}/page?size=100`).set('authorization', sup));
    await record('page (clientRef)', api().get(`${V1}/page?clientRef=demo`).set('authorization', sup));
    await record('availability', api().put(`${V1}/availability`).set('authorization', KEYS.ada));
    await record(
      'availability (value)',
      api().put(`${V1}/availability`).set('authorization', KEYS.ada).send({ availabilityStatus: true }),
    );
    await record(
      'agent-chat-limit',
      api()
        .put(`${V1}/agent-chat-limit`)
        .set('authorization', sup)
        .send({ userId: IDS.ada, agentChatLimit: 3 }),
    );
    await record('credits', api().get(`${V1}/me/credits`).set('authorization', sup));
    await record(
      'password change',
      api()
        .post(`${V1}/me/password/change`)
        .set('authorization', KEYS.bob)
        .send({ oldPassword: 'password', newPassword: 'q', confirmNewPassword: 'q' }),
    );
    await record('delete', api().delete(`${V1}/${newId}`).set('authorization', sup));
    // error bodies too
    await record(
      'password change (wrong old)',
      api()
        .post(`${V1}/me/password/change`)
        .set('authorization', sup)
        .send({ oldPassword: 'x', newPassword: 'q', confirmNewPassword: 'q' }),
    );
    await record(
      'create (credential)',
      api().post(V1).set('authorization', sup).send({ email: 'p@demo.test', password: 'p' }),
    );
    await record('update (unknown)', api().put(V1).set('authorization', sup).send({ id: 'ghost' }));
    await record(
      'create (conflict)',
      api().post(V1).set('authorization', sup).send({ email: 'agent@demo.test' }),
    );
    await record('unauthorized', api().get(`${V1}/me`).set('authorization', 'nope'));

    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(13);
    expect(statuses.slice(13)).toEqual([400, 400, 404, 409, 401]);
    const leaks = responses.flatMap(({ name, body }) =>
      findKeys(body, CREDENTIAL_FIELDS).map((path) => `${name}: ${path}`),
    );
    expect(leaks).toEqual([]);
    // the temporary password of a new user is the one exception, under its own name
    expect(created.body).toHaveProperty('temporaryPassword');
  });

  it('the walker finds credentials where the deprecated operations return them (so the test above can fail)', async () => {
    const emulator = createEmulator({ seed: seedWithEveryCredential() });
    const res = await request(emulator.listener)
      .get(`${SU}/getCurrentLoginSystemUser`)
      .set('authorization', KEYS.supervisor);
    expect(findKeys(res.body, CREDENTIAL_FIELDS).sort()).toEqual(
      [
        'password',
        'tempPassword',
        'apiKey',
        'loginToken',
        'emailVerificationKey',
        'passwordResetKey',
        'applicationKey',
        'client.smsPassword',
        'client.headerKeyPairsJson',
      ].sort(),
    );
    expect(findKeys({ a: [{ b: { apiKey: 1 } }] }, CREDENTIAL_FIELDS)).toEqual(['a.0.b.apiKey']);
  });
});
