import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { hostName } from '../../src/emulator/http/hosts.js';

// DNS rebinding (issue 24, item 1): a page on attacker.example whose name resolves to 127.0.0.1
// is same-origin with itself, so its Origin matches its Host; only the Host names it.

const ATTACKER = 'attacker.example:4010';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let emulator: Emulator;
beforeEach(() => {
  emulator = createEmulator({ retry: { attempts: 1 } });
});
afterEach(() => emulator.close());

/** The requests a rebinding page would make: the inspector page, state, deliveries, a trigger. */
const attacks = [
  { name: 'the inspector page', method: 'get', path: '/_emulator', accept: BROWSER_ACCEPT },
  { name: 'the inspector view model', method: 'get', path: '/_emulator/inspector/view' },
  { name: 'the state', method: 'get', path: '/_emulator/state' },
  { name: 'the snapshot (API keys)', method: 'get', path: '/_emulator/snapshot' },
  { name: 'the deliveries', method: 'get', path: '/_emulator/deliveries' },
  { name: 'a trigger', method: 'post', path: '/_emulator/customer-message' },
  { name: 'the documented API', method: 'get', path: '/Messaging/MessagingClientWebHook/list' },
] as const;

describe('the Host check', () => {
  it.each(attacks)('refuses $name for Host attacker.example with a matching Origin (403 JSON)', async (a) => {
    const agent = request(emulator.listener);
    const test = (a.method === 'post' ? agent.post(a.path) : agent.get(a.path))
      .set('host', ATTACKER)
      .set('origin', `http://${ATTACKER}`)
      .set('accept', 'accept' in a ? a.accept : 'application/json')
      .set('authorization', 'emu-supervisor-key');
    const response = await (a.method === 'post'
      ? test.send({ number: '+27820000001', from: '+27831234567', text: 'Hi' })
      : test);
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ code: 'FORBIDDEN', field: 'host' });
    expect(response.body.message).toContain('attacker.example');
    expect(response.body.message).toContain('--allowed-host');
  });

  it('triggers nothing for a refused request', async () => {
    await request(emulator.listener)
      .post('/_emulator/customer-message')
      .set('host', ATTACKER)
      .send({ number: '+27820000001', from: '+27831234567', text: 'Hi' })
      .expect(403);
    expect(emulator.state.chatParticipants.size).toBe(0);
  });

  it.each(['localhost', 'localhost:4010', '127.0.0.1', '127.0.0.1:9', '[::1]', '[::1]:4010', 'LOCALHOST:1'])(
    'serves Host %s',
    async (host) => {
      await request(emulator.listener).get('/_emulator/state').set('host', host).expect(200);
    },
  );

  it('serves the default supertest request (Host 127.0.0.1:<port>) and keeps the Origin check', async () => {
    await request(emulator.listener).get('/_emulator/state').expect(200);
    // a loopback Host with another site's Origin is the Origin check's refusal
    const crossSite = await request(emulator.listener)
      .post('/_emulator/customer-message')
      .set('origin', 'http://evil.example')
      .send({ number: '+27820000001', from: '+27831234567', text: 'Hi' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.message).toContain('Cross-site request from http://evil.example refused');
  });

  it('refuses a request without a Host header', async () => {
    const url = new URL(await emulator.listen());
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: '/_emulator/state',
        setHost: false,
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    // node:http refuses an HTTP/1.1 request without Host first (400); the check would (403)
    expect([400, 403]).toContain(status);
  });

  it('serves the names in allowedHosts (any port), case-insensitively', async () => {
    const inContainer = createEmulator({ allowedHosts: ['emulator', 'Emulator.Internal:4010'] });
    for (const host of ['emulator', 'emulator:4010', 'emulator.internal', 'EMULATOR.INTERNAL:80']) {
      await request(inContainer.listener).get('/_emulator/state').set('host', host).expect(200);
    }
    await request(inContainer.listener).get('/_emulator/state').set('host', 'emulator.evil').expect(403);
    await inContainer.close();
  });

  it('serves the address it listens on, and only while listening there', async () => {
    // 127.0.0.2 is a loopback address too on Linux, but not one of the names served by default
    const url = new URL(await emulator.listen(0, '127.0.0.2'));
    await request(emulator.listener).get('/_emulator/state').set('host', url.host).expect(200);
    await request(emulator.listener).get('/_emulator/state').set('host', '127.0.0.3').expect(403);
    await emulator.close();
    await request(emulator.listener).get('/_emulator/state').set('host', url.host).expect(403);
  });

  it('refuses a malformed allowedHosts at construction', () => {
    expect(() => createEmulator({ allowedHosts: 'emulator' as never })).toThrow(
      /allowedHosts must be an array of host names, got string/,
    );
    expect(() => createEmulator({ allowedHosts: ['http://emulator/'] })).toThrow(
      /allowedHosts: expected host names .*got "http:\/\/emulator\/"/,
    );
  });

  it.each([
    ['localhost:4010', 'localhost'],
    ['[::1]:4010', '[::1]'],
    ['::1', '[::1]'],
    ['Example.COM', 'example.com'],
  ])('reads the name of %s as %s', (host, name) => {
    expect(hostName(host)).toBe(name);
  });
});
