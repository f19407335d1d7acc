import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReceiver, type Receiver } from './receiver.js';
import {
  assertBuilt,
  runCli,
  spawnCli,
  STACK_LINE,
  waitForExit,
  waitForOutput,
  type CliRun,
} from './run-cli.js';

// The developer's loop from a terminal, against the built CLI: an emulator started with the
// chatbot configuration and per-type targets it should create, `trigger --payload` from a file and
// from standard input, `logs` (filtered, JSON, following) and `resend`.

let receiver: Receiver;
let bot: Receiver;
let emulator: ChildProcessWithoutNullStreams;
let exited: Promise<CliRun>;
let url: string;
let banner: string;
const dir = mkdtempSync(join(tmpdir(), 'mw-loop-'));

beforeAll(async () => {
  assertBuilt();
  receiver = await startReceiver('s3cret');
  bot = await startReceiver('s3cret');
  emulator = spawnCli([
    'emulator',
    '--port',
    '0',
    '--retry-attempts',
    '1',
    '--forward-to',
    receiver.url,
    '--forward-chatbot-to',
    `${bot.url}/chatbot`,
    '--token',
    's3cret',
    '--chatbot-payload-version',
    'v2',
    '--chatbot-include-outgoing',
    '--chatbot-stop-on-agent-assignment',
  ]);
  exited = waitForExit(emulator, 120_000);
  const match = await waitForOutput(emulator, /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/);
  [banner = '', url = ''] = match;
});
afterAll(async () => {
  emulator.kill('SIGTERM');
  await exited;
  await receiver.close();
  await bot.close();
});

const cli = (...args: string[]): Promise<CliRun> => runCli([...args, '--emulator', url]);

describe('emulator: the configuration it creates', () => {
  it('carries the chatbot flags and the per-type target, and masks the token in the banner', async () => {
    const config = (await (
      await fetch(`${url}/_emulator/numbers/+27820000001/webhook-config`)
    ).json()) as Record<string, unknown>;
    expect(config).toMatchObject({
      incomingMessageURL: `${receiver.url}/incoming?token=s3cret`,
      chatbotWebhookURL: `${bot.url}/chatbot?token=s3cret`,
      chatbotPayloadVersion: 'v2',
      chatbotIncludeOutgoing: true,
      chatbotStopOnAgentAssignment: true,
    });
    expect(banner).toContain(`chatbot  ${bot.url}/chatbot?token=****`);
    expect(banner).toContain('chatbot payload v2, outgoing events on, stop on agent assignment on');
    expect(banner).not.toContain('s3cret');
  });

  it('refuses --chatbot-* without a forward target, and an unknown payload version', async () => {
    const alone = await runCli(['emulator', '--port', '0', '--chatbot-include-outgoing']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/^error: --chatbot-\* set the configuration --forward-to creates/m);
    expect(alone.stderr).not.toMatch(STACK_LINE);
    const version = await runCli(['emulator', '--port', '0', '--chatbot-payload-version', 'v3']);
    expect(version.code).toBe(1);
    expect(version.stderr).toMatch(/argument 'v3' is invalid. Allowed choices are v1, v2/);
  });
});

describe('trigger --payload', () => {
  it("reads the kind's fields from a file; flags win over the file", async () => {
    const file = join(dir, 'message.json');
    writeFileSync(
      file,
      JSON.stringify({ from: '+27835550101', text: 'from the file', profileName: 'Thandi' }),
    );
    const run = await cli('trigger', 'customer-message', '--payload', file, '--text', 'from the flag');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/customer message from \+27835550101 to \+27820000001/);
    await receiver.router.idle();
    const message = receiver.calls.filter((c) => c.type === 'incoming').at(-1)?.payload;
    expect(message).toMatchObject({ sender: '+27835550101', text: 'from the flag' });
    // the v2 chatbot event went to the chatbot target
    await bot.router.idle();
    expect(bot.calls.at(-1)).toMatchObject({ type: 'chatbot', payload: { messageText: 'from the flag' } });
  });

  it('reads standard input with -, and prints the emulator refusal of a bad field', async () => {
    const child = spawnCli(['trigger', 'customer-message', '--emulator', url, '--payload', '-']);
    child.stdin.end(JSON.stringify({ from: 'not a number' }));
    const run = await waitForExit(child);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the emulator refused POST \/_emulator\/customer-message: 400 .*from/m,
    );
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('names a file that is not JSON or not an object', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"from": ');
    const notJson = await cli('trigger', 'customer-message', '--payload', bad);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(new RegExp(`^error: --payload: ${bad} is not JSON: `, 'm'));
    const list = join(dir, 'list.json');
    writeFileSync(list, '[1]');
    const notObject = await cli('trigger', 'customer-message', '--payload', list);
    expect(notObject.stderr).toMatch(/expected a JSON object of the customer-message fields/);
    const missing = await cli('trigger', 'customer-message', '--payload', join(dir, 'nope.json'));
    expect(missing.stderr).toMatch(/--payload: cannot read .*nope\.json: no such file/);
  });
});

describe('logs and resend', () => {
  it('prints the log with message text and status values, filtered, as text or JSON lines', async () => {
    await cli('trigger', 'customer-message', '--from', '+27835550202', '--text', 'Is it shipped?');
    await cli('trigger', 'status-change', '--to', '+27835550202', '--status', 'READ');
    const text = await cli('logs', '--limit', '50');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^#\d+ \d\d:\d\d:\d\d incoming +\+27820000001 \+27835550202 {2}TEXT "Is it shipped\?" {2}→ http:\/\/127\.0\.0\.1:\d+\/webhooks\/incoming\?token=\*\*\*\* {2}delivered 200/m,
    );
    expect(text.stdout).toMatch(/ status +\+27820000001 \+27835550202 {2}READ {2}→ /);
    expect(text.stdout).not.toContain('s3cret');

    const statuses = await cli('logs', '--type', 'status', '--json');
    const entries = statuses.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; payload: { status: string }; url: string });
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(new Set(entries.map((e) => e.type))).toEqual(new Set(['status']));
    expect(entries.map((e) => e.payload.status).slice(-4)).toEqual(['ACCEPTED', 'SENT', 'DELIVERED', 'READ']);
    expect(entries[0]?.url).toMatch(/\?token=\*\*\*\*$/);

    const revealed = await cli('logs', '--type', 'status', '--json', '--limit', '1', '--show-secrets');
    expect(revealed.stdout).toContain('?token=s3cret');
    const none = await cli('logs', '--status', '503');
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/No deliveries \(with these filters\)/);
  });

  it('follows the log: each delivery printed once, when it has its answer, until Ctrl+C', async () => {
    const follower = spawnCli(['logs', '--follow', '--limit', '0', '--type', 'incoming', '--emulator', url]);
    const followed = waitForExit(follower, 60_000);
    let seen = '';
    follower.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await new Promise<void>((resolve) => {
      follower.stderr.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Following the delivery log')) resolve();
      });
    });
    await cli('trigger', 'customer-message', '--from', '+27835550303', '--text', 'first');
    await cli('trigger', 'customer-message', '--from', '+27835550303', '--text', 'second');
    await waitForOutput(follower, /"second"/, 20_000).catch(() => undefined);
    follower.kill('SIGINT');
    const run = await followed;
    expect(run.code).toBe(0);
    const lines = seen.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/incoming .*TEXT "first" .*delivered 200/);
    expect(lines[1]).toMatch(/incoming .*TEXT "second" .*delivered 200/);
  });

  it('resends a delivery by its sequence number and prints the answer', async () => {
    const logged = await cli('logs', '--type', 'incoming', '--json', '--limit', '1');
    const { sequence } = JSON.parse(logged.stdout.trim()) as { sequence: number };
    const before = receiver.calls.length;
    const run = await cli('resend', `#${sequence}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^resent #${sequence}:\\n {2}#\\d+ incoming +→ .*token=\\*\\*\\*\\* {2}delivered 200`, 'm'),
    );
    await receiver.router.idle();
    // the receiver deduplicates: the same body again is answered, not run twice
    expect(receiver.calls.length).toBe(before);
    const missing = await cli('resend', '999999');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: no delivery #999999 in the emulator's log/m);
  });
});
