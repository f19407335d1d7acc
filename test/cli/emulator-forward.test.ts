import { startReceiver } from './receiver.js';
import { assertBuilt, runCli, spawnCli, STACK_LINE, waitForExit, waitForOutput } from './run-cli.js';

// `emulator --forward-to <base> --token <t> --header 'Name: value'`: every client's default
// configuration points each webhook type at the receiver's own paths, with its token.

beforeAll(assertBuilt);

describe('messaging-webhooks emulator --forward-to', () => {
  it("configures every type to the receiver's paths with its token, and sends --header", async () => {
    const receiver = await startReceiver('s3cret');
    const child = spawnCli([
      'emulator',
      '--port',
      '0',
      '--forward-to',
      `${receiver.url}/`,
      '--token',
      's3cret',
      '--header',
      'X-Tenant: acme',
    ]);
    const exited = waitForExit(child);
    try {
      const [, url] = await waitForOutput(child, /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/);
      const config = (await (
        await fetch(`${url}/_emulator/numbers/+27820000001/webhook-config`)
      ).json()) as Record<string, unknown>;
      expect(config).toMatchObject({
        messagingNumberId: null,
        incomingMessageURL: `${receiver.url}/incoming?token=s3cret`,
        statusUpdateURL: `${receiver.url}/status?token=s3cret`,
        sessionStatusURL: `${receiver.url}/session?token=s3cret`,
        eventWebhookURL: `${receiver.url}/events?token=s3cret`,
        chatbotWebhookURL: `${receiver.url}/chatbot?token=s3cret`,
      });
      // the other client of the seed too
      const other = (await (
        await fetch(`${url}/_emulator/numbers/+27830000001/webhook-config`)
      ).json()) as Record<string, unknown>;
      expect(other.incomingMessageURL).toBe(`${receiver.url}/incoming?token=s3cret`);

      const post = (path: string, body: unknown): Promise<Response> =>
        fetch(`${url}/_emulator/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect(
        (await post('customer-message', { number: '+27820000001', from: '+27831234567', text: 'Hi' })).status,
      ).toBe(200);
      expect((await post('sessions', { number: '+27820000001', statusType: 'connecting' })).status).toBe(200);
      expect(
        (
          await post('partner-events', {
            eventType: 'USER_CHANGED_NUMBER',
            messagingNumber: '+27820000001',
            oldNumber: '+27831234567',
            newNumber: '+27831234568',
          })
        ).status,
      ).toBe(200);
      expect((await post('messages', { number: '+27820000001', to: '+27831234567' })).status).toBe(200);
      await post('idle', {});
      const deliveries = (await (await fetch(`${url}/_emulator/deliveries`)).json()) as {
        items: { type: string; state: string; responseStatus: number }[];
      };
      // every type answered 200 by the receiver: right path, right token
      expect(deliveries.items.map((d) => [d.type, d.state, d.responseStatus]).sort()).toEqual(
        [
          ['chatbot', 'delivered', 200],
          ['event', 'delivered', 200],
          ['incoming', 'delivered', 200],
          ['session', 'delivered', 200],
          ['status', 'delivered', 200],
        ].sort(),
      );
      await receiver.router.idle();
      expect(receiver.calls.map((c) => c.type).sort()).toEqual([
        'chatbot',
        'event',
        'incoming',
        'session',
        'status',
      ]);
      expect(receiver.calls.find((c) => c.type === 'incoming')?.payload).toMatchObject({ text: 'Hi' });
      expect(receiver.headers.every((h) => h['x-tenant'] === 'acme')).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await receiver.close();
    }
    const run = await exited;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Webhooks of clients demo, other forwarded to:');
    // the token is masked in the terminal; the configuration holds it
    expect(run.stdout).toContain(`chatbot  ${receiver.url}/chatbot?token=****`);
    expect(run.stdout).not.toContain('s3cret');
    expect(run.stdout).toContain('Every delivery carries the header x-tenant');
  });

  it('updates a default the state already has instead of failing on scope rule 5', async () => {
    const child = spawnCli(['emulator', '--port', '0']);
    const exited = waitForExit(child);
    try {
      const [, url] = await waitForOutput(child, /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/);
      await fetch(`${url}/Messaging/MessagingClientWebHook`, {
        method: 'POST',
        headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
        body: JSON.stringify({ incomingMessageURL: 'http://127.0.0.1:9/old', chatbotPayloadVersion: 'v2' }),
      });
      // a snapshot to start from carries its keys: ?reveal=keys (the default masks them)
      const snapshot = await (await fetch(`${url}/_emulator/snapshot?reveal=keys`)).text();
      const { mkdtempSync, writeFileSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const file = join(mkdtempSync(join(tmpdir(), 'emux-forward-')), 'state.json');
      writeFileSync(file, snapshot);
      const second = spawnCli([
        'emulator',
        '--port',
        '0',
        '--state',
        file,
        '--forward-to',
        'http://127.0.0.1:9/hooks',
      ]);
      const secondExit = waitForExit(second);
      try {
        const [, secondUrl] = await waitForOutput(
          second,
          /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
        );
        const config = (await (
          await fetch(`${secondUrl}/_emulator/numbers/+27820000001/webhook-config`)
        ).json()) as Record<string, unknown>;
        expect(config).toMatchObject({
          incomingMessageURL: 'http://127.0.0.1:9/hooks/incoming',
          chatbotPayloadVersion: 'v2',
        });
      } finally {
        second.kill('SIGTERM');
      }
      expect((await secondExit).code).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await exited).code).toBe(0);
  });

  it.each([
    [
      ['--forward-to', 'localhost:3000'],
      "option '--forward-to <base-url>' argument 'localhost:3000' is invalid",
    ],
    [['--forward-to', 'ftp://x/'], 'expected an http(s) URL, got the scheme ftp:'],
    [['--forward-to', 'http://x/?token=1'], 'without a query or fragment'],
    [['--header', 'no colon'], "expected 'Name: value'"],
    [['--token', 't'], '--token goes in the URLs --forward-to configures'],
  ])('refuses %j with a clear error', async (args, message) => {
    const run = await runCli(['emulator', '--port', '0', ...args]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });
});

describe('messaging-webhooks emulator --allowed-host', () => {
  it('serves the names given (repeatable) and refuses others with 403 (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const child = spawnCli([
      'emulator',
      '--port',
      '0',
      '--allowed-host',
      'emulator',
      '--allowed-host',
      'emulator.internal',
    ]);
    const exited = waitForExit(child);
    try {
      const [, url = ''] = await waitForOutput(
        child,
        /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
      );
      const { hostname, port } = new URL(url);
      const statusFor = (host: string): Promise<number> =>
        new Promise((resolve, reject) => {
          const req = request({ hostname, port, path: '/_emulator/state', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await statusFor(`emulator:${port}`)).toBe(200);
      expect(await statusFor('emulator.internal')).toBe(200);
      expect(await statusFor(`localhost:${port}`)).toBe(200);
      expect(await statusFor(`attacker.example:${port}`)).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await exited).code).toBe(0);
  });
});
