import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  describeDelivery,
  kindFields,
  STATUS_PROGRESS,
  TRIGGER_KINDS,
  type TriggerStep,
} from '../../src/cli/trigger.js';
import { DELIVERY_PROGRESS } from '../../src/schemas/status.js';
import {
  botReplyInputSchema,
  customerMessageInputSchema,
  messageStatusInputSchema,
  partnerEventInputSchema,
  PARTNER_EVENT_FIELDS,
  sendMessageInputSchema,
  sessionChangeInputSchema,
} from '../../src/emulator/triggers.js';
import { startReceiver, type Receiver } from './receiver.js';
import {
  assertBuilt,
  runCli,
  spawnCli,
  STACK_LINE,
  unusedPort,
  waitForExit,
  waitForOutput,
  type CliRun,
} from './run-cli.js';

// `messaging-webhooks trigger <kind>` against a running emulator (the built CLI, forwarding to a
// real receiver): the overrides reach the receiver's callbacks, the emulator validates them
// (its 400 printed, exit 1), and every delivery's outcome is printed.

let receiver: Receiver;
let emulator: ChildProcessWithoutNullStreams;
let exited: Promise<CliRun>;
let url: string;

beforeAll(async () => {
  assertBuilt();
  receiver = await startReceiver('s3cret');
  emulator = spawnCli([
    'emulator',
    '--port',
    '0',
    '--retry-attempts',
    '1',
    '--forward-to',
    receiver.url,
    '--token',
    's3cret',
  ]);
  exited = waitForExit(emulator, 120_000);
  [, url = ''] = await waitForOutput(emulator, /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/);
});
afterAll(async () => {
  emulator.kill('SIGTERM');
  await exited;
  await receiver.close();
});
beforeEach(() => {
  receiver.calls.length = 0;
});

const trigger = (kind: string, ...args: string[]): Promise<CliRun> =>
  runCli(['trigger', kind, '--emulator', url, ...args]);
const callsOf = async (type: string): Promise<Record<string, unknown>[]> => {
  await receiver.router.idle();
  return receiver.calls.filter((c) => c.type === type).map((c) => c.payload);
};

describe('messaging-webhooks trigger', () => {
  it('customer-message: the overrides reach the receiver, and each delivery is printed', async () => {
    const run = await trigger(
      'customer-message',
      '--from',
      '+27835550000',
      '--text',
      'Where is my order?',
      '--profile-name',
      'Thandi',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await callsOf('incoming')).toEqual([
      expect.objectContaining({ sender: '+27835550000', text: 'Where is my order?', profileName: 'Thandi' }),
    ]);
    expect(run.stdout).toMatch(
      /^customer message from \+27835550000 to \+27820000001: chat \S+, gstId \S+$/m,
    );
    expect(run.stdout).toMatch(
      /#\d+ incoming +→ http:\/\/127\.0\.0\.1:\d+\/webhooks\/incoming\?token=\*\*\*\* {2}delivered 200 \d+ ms/,
    );
    expect(run.stdout).toMatch(/#\d+ chatbot +→ .*\/webhooks\/chatbot\?token=\*\*\*\* {2}delivered 200/);
  });

  it("prints the emulator's 400 for an invalid override and exits 1", async () => {
    const run = await trigger('customer-message', '--from', '12345');
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'error: the emulator refused POST /_emulator/customer-message: 400 BAD_REQUEST: from: Expected an E.164 phone number (+ and 2-15 digits), e.g. +27831234567',
    );
    expect(await callsOf('incoming')).toEqual([]);
    const partner = await trigger(
      'partner-event',
      '--event-type',
      'USER_PREFERENCE',
      '--wa-id',
      '+27831234567',
    );
    expect(partner.code).toBe(1);
    expect(partner.stderr).toContain('400 BAD_REQUEST: waId: Expected a phone number without +');
    const session = await trigger('session-change', '--status-type', 'asleep');
    expect(session.code).toBe(1);
    expect(session.stderr).toContain('400 BAD_REQUEST: statusType: Invalid option');
    const json = await trigger('customer-message', '--content-type', 'CONTACT', '--contact', '{name');
    expect(json.code).not.toBe(0);
    expect(json.stderr).toContain("option '--contact <value>' argument '{name' is invalid. expected JSON");
    const unknown = await trigger('customer-message', '--txet', 'Hi');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("unknown option '--txet'");
    for (const r of [run, partner, session, json, unknown]) expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('status-change: walks a new outbound message to --status; --gst-id moves one message', async () => {
    const run = await trigger('status-change', '--to', '+27835550001', '--status', 'READ');
    expect(run.code).toBe(0);
    const statuses = await callsOf('status');
    expect(statuses.map((p) => p.status)).toEqual(['ACCEPTED', 'SENT', 'DELIVERED', 'READ']);
    expect(statuses[0]).toMatchObject({ receiver: '+27835550001' });
    const gstId = String(statuses[0]?.gstId);
    receiver.calls.length = 0;
    // READ -> FAILED is not a documented transition: the emulator's 409, printed
    const illegal = await trigger('status-change', '--gst-id', gstId, '--status', 'FAILED');
    expect(illegal.code).toBe(1);
    expect(illegal.stderr).toContain('Illegal delivery status transition READ -> FAILED');
    const failed = await trigger('status-change', '--status', 'FAILED', '--error-code', '131026');
    expect(failed.code).toBe(0);
    expect((await callsOf('status')).map((p) => [p.status, p.errorCode ?? null])).toEqual([
      ['ACCEPTED', null],
      ['SENT', null],
      ['FAILED', '131026'],
    ]);
  });

  it('chatbot-turn: the customer message (INCOMING) then the bot reply, or why there is no OUTGOING event', async () => {
    const run = await trigger('chatbot-turn', '--text', 'Hi bot', '--message-text', 'Hello human');
    expect(run.code).toBe(0);
    expect((await callsOf('chatbot')).map((p) => [p.direction, p.messageText])).toEqual([
      ['INCOMING', 'Hi bot'],
    ]);
    // chatbotIncludeOutgoing is false in the configuration --forward-to made (the documented default)
    expect(run.stdout).toContain('no chatbot event: the configuration has chatbotIncludeOutgoing false');
    const [, chat] = /chat (\S+)/.exec(run.stdout) ?? [];
    const config = (await (await fetch(`${url}/_emulator/numbers/+27820000001/webhook-config`)).json()) as {
      id: string;
    };
    const updated = await fetch(`${url}/Messaging/MessagingClientWebHook`, {
      method: 'PUT',
      headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
      body: JSON.stringify({ id: config.id, chatbotIncludeOutgoing: true }),
    });
    expect(updated.status).toBe(200);
    receiver.calls.length = 0;
    const reply = await trigger(
      'chatbot-turn',
      '--chat-participant-id',
      String(chat),
      '--message-text',
      'Anything else?',
    );
    expect(reply.code).toBe(0);
    expect((await callsOf('chatbot')).map((p) => [p.direction, p.messageText])).toEqual([
      ['OUTGOING', 'Anything else?'],
    ]);
    await fetch(`${url}/Messaging/MessagingClientWebHook`, {
      method: 'PUT',
      headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
      body: JSON.stringify({ id: config.id, chatbotIncludeOutgoing: false }),
    });
  });

  it('session-change and partner-event: defaults, overrides and the example fields of an event type', async () => {
    expect((await trigger('session-change')).code).toBe(0);
    expect(
      (await trigger('session-change', '--status', 'Sync Complete. You can now send messages')).code,
    ).toBe(0);
    expect((await callsOf('session')).map((p) => p.statusType)).toEqual(['connecting', 'success']);
    const example = await trigger('partner-event', '--event-type', 'TEMPLATE_STATUS_CHANGED');
    const given = await trigger(
      'partner-event',
      '--event-type',
      'TEMPLATE_STATUS_CHANGED',
      '--template-name',
      'promo',
      '--template-status',
      'REJECTED',
      '--rejected-reason',
      'spam',
      '--timestamp',
      '1767268800000',
    );
    expect([example.code, given.code]).toEqual([0, 0]);
    expect(await callsOf('event')).toEqual([
      expect.objectContaining({
        eventType: 'TEMPLATE_STATUS_CHANGED',
        templateName: 'welcome',
        templateStatus: 'APPROVED',
      }),
      expect.objectContaining({
        templateName: 'promo',
        templateStatus: 'REJECTED',
        rejectedReason: 'spam',
        timestamp: 1767268800000,
      }),
    ]);
  });

  it('marks a delivery the receiver answered as a duplicate', async () => {
    const run = await trigger('customer-message', '--text', 'twice', '--faults', '[{"kind":"duplicate"}]');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /incoming .*delivered 200 \d+ ms\n.*incoming .*delivered 200 \d+ ms \(the receiver answered: duplicate\)/,
    );
  });

  it('--no-wait returns once emitted; a failed delivery exits 1 with its reason', async () => {
    const queued = await trigger('partner-event', '--no-wait');
    expect(queued.code).toBe(0);
    expect(queued.stdout).toMatch(/#\d+ event .* (queued|delivering|delivered)/);
    const port = await unusedPort();
    const down = spawnCli([
      'emulator',
      '--port',
      '0',
      '--retry-attempts',
      '1',
      '--forward-to',
      `http://127.0.0.1:${port}/webhooks`,
    ]);
    const downExit = waitForExit(down);
    try {
      const [, downUrl = ''] = await waitForOutput(
        down,
        /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
      );
      const run = await runCli(['trigger', 'session-change', '--emulator', downUrl]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/#1 session .* failed \(.*ECONNREFUSED.*\)/);
    } finally {
      down.kill('SIGTERM');
    }
    await downExit;
  });

  it('says where no emulator answers', async () => {
    const port = await unusedPort();
    const run = await runCli(['trigger', 'customer-message', '--emulator', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `error: no emulator at http://127.0.0.1:${port} (connection refused): start one with \`messaging-webhooks emulator\`, or pass --emulator <url>`,
    );
  });
});

describe('the trigger fields', () => {
  // every option sets a field the control route reads (zod drops unknown keys silently, so a
  // field the schema does not have would be an override that never applies)
  const shapes: Record<TriggerStep, readonly string[]> = {
    'customer-message': Object.keys(customerMessageInputSchema.shape),
    'bot-reply': Object.keys(botReplyInputSchema.shape),
    messages: Object.keys(sendMessageInputSchema.shape),
    status: Object.keys(messageStatusInputSchema.shape),
    sessions: Object.keys(sessionChangeInputSchema.shape),
    'partner-events': [
      ...Object.keys(partnerEventInputSchema.shape),
      ...Object.values(PARTNER_EVENT_FIELDS).flatMap((shape) => Object.keys(shape)),
    ],
  };
  it.each(Object.keys(TRIGGER_KINDS) as (keyof typeof TRIGGER_KINDS)[])(
    '%s sets only fields of its routes',
    (kind) => {
      const steps = TRIGGER_KINDS[kind].fields as Partial<Record<TriggerStep, readonly { field: string }[]>>;
      for (const [step, fields] of Object.entries(steps) as [TriggerStep, { field: string }[]][]) {
        for (const { field } of fields) expect(shapes[step]).toContain(field.split('.')[0]);
      }
      expect(kindFields(kind).length).toBeGreaterThan(0);
    },
  );

  it('offers every documented field of a customer message and of each partner event', () => {
    const flags = (kind: keyof typeof TRIGGER_KINDS): string[] => kindFields(kind).map((f) => f.field);
    expect(flags('customer-message').sort()).toEqual([...shapes['customer-message']].sort());
    for (const key of shapes['partner-events']) expect(flags('partner-event')).toContain(key);
  });
});

describe('a delivery as trigger prints it', () => {
  const delivery = (responseStatus: number, responseBody: string) => ({
    id: 'd1',
    sequence: 1,
    type: 'incoming',
    url: 'http://127.0.0.1:1/webhooks/incoming',
    state: responseStatus < 300 ? 'delivered' : 'failed',
    attempts: 1,
    responseStatus,
    latencyMs: 3,
    error: responseStatus < 300 ? null : `Receiver answered ${responseStatus}`,
    responseBody,
    duplicateOf: null,
  });
  const DUPLICATE = '(the receiver answered: duplicate)';

  it('is marked a duplicate as the inspector marks it: a 2xx whose body says duplicate: true at its top level', () => {
    expect(describeDelivery(delivery(200, '{"received":true,"duplicate":true}'))).toContain(DUPLICATE);
    expect(describeDelivery(delivery(200, '{"received":true}'))).not.toContain(DUPLICATE);
    // neither a refusal nor a nested field is the receiver's duplicate answer
    expect(describeDelivery(delivery(503, '{"error":{"code":"queue_full"},"duplicate":true}'))).not.toContain(
      DUPLICATE,
    );
    expect(describeDelivery(delivery(200, '{"received":true,"meta":{"duplicate":true}}'))).not.toContain(
      DUPLICATE,
    );
  });
});

it("walks a message through the schemas' delivery progress, written out in the CLI so as not to load zod", () => {
  expect(STATUS_PROGRESS).toEqual(DELIVERY_PROGRESS.slice(1));
});
