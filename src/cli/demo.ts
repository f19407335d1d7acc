import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { WebhookContext } from '../dispatch/index.js';
import { createEmulator, DEFAULT_API_KEYS, EmulatorError, type Emulator } from '../emulator/index.js';
import { createWebhookRouter, type WebhookRouter } from '../receiver/index.js';
import {
  WEBHOOK_PATHS,
  type ChatbotEvent,
  type IncomingMessage,
  type PartnerEvent,
  type SessionStatus,
  type StatusUpdate,
} from '../schemas/index.js';
import { createJsonlCapture, type JsonlCapture } from '../capture/jsonl-capture.js';
import type { WriteLine } from './output.js';
import { EXAMPLE_CUSTOMER, SEED_LITE_NUMBER } from '../emulator/state/seed-numbers.js';

/** The receiver callbacks the demo shows, in the order the summary lists them. */
export const DEMO_CALLBACKS = ['onIncoming', 'onChatbot', 'onStatus', 'onSession', 'onEvent'] as const;
/** The name of one receiver callback the demo counts. */
type DemoCallback = (typeof DEMO_CALLBACKS)[number];

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Where the timeline goes. @default nowhere */
  readonly write?: WriteLine | undefined;
  /** Also capture every request the receiver gets to this JSONL file (for `replay`/`validate`). */
  readonly capture?: string | undefined;
  /** Logger for the receiver and the emulator. @default silent */
  readonly logger?: Logger | undefined;
  /**
   * Keeps the emulator (and its inspector) and the receiver running after the scenario until the
   * promise this returns settles (the CLI's `--keep-open`: until Ctrl+C). @default close at once
   */
  readonly keepOpen?: (() => Promise<void>) | undefined;
}

/** One property the demo checks about what the receiver saw. */
interface DemoCheck {
  readonly name: string;
  readonly ok: boolean;
}

/** What {@link runDemo} saw. */
export interface DemoResult {
  /** True when every check passed. */
  readonly ok: boolean;
  readonly checks: readonly DemoCheck[];
  /** Callback invocations per callback. */
  readonly callbacks: Readonly<Record<DemoCallback, number>>;
  /** Requests captured, when `capture` was given. */
  readonly captured: number | undefined;
}

/** The seeded Lite number of client demo, and the customer of the scenario. */
const ADA = '00000000-0000-4000-8000-000000000022';
/** The demo's fixed emulator start time, so the timeline reads the same every run. */
const START = Date.UTC(2026, 0, 1, 9, 0, 0);

const short = (id: string | null | undefined): string => (id == null ? '-' : id.slice(0, 8));
const quote = (text: string | null | undefined): string =>
  text == null || text === '' ? '' : ` "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"`;

function describeIncoming(message: IncomingMessage): string {
  const from = `from ${message.sender}`;
  switch (message.messageContentType) {
    case 'TEXT':
    case 'CONTACT':
      return `${message.messageContentType} ${from}:${quote(message.text)}`;
    case 'MEDIA':
      return `MEDIA ${from}: ${message.fileExtension ?? '?'} ${message.mediaUrl ?? ''}${quote(message.caption)}`;
    case 'LOCATION':
      return `LOCATION ${from}: ${message.latitude ?? '?'},${message.longitude ?? '?'}${quote(message.label)}`;
    case 'REACTION':
      return `REACTION ${from}: ${message.text === '' || message.text == null ? '(removed)' : message.text} on message ${short(message.gstId)}`;
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      return `${message.messageContentType} ${from}: tapped${quote(message.buttonText)} (payload ${message.buttonPayload ?? '-'})`;
    default:
      // An unlisted content type: typed UnlistedValue, so stringified explicitly.
      return `${String(message.messageContentType)} ${from}`;
  }
}

function describeChatbot(event: ChatbotEvent, ctx: WebhookContext<'chatbot'>): string {
  const who = event.assignedAgentName == null ? 'bot in control' : `agent ${event.assignedAgentName}`;
  return (
    `${ctx.payloadVersion} ${String(event.direction)} ${event.messageType ?? '-'} chat ${short(event.chatParticipantId)}` +
    `${quote(event.messageText)} (${who})`
  );
}

function describeStatus(receipt: StatusUpdate, ctx: WebhookContext<'status'>): string {
  const change = ctx.delivery;
  const outcome =
    change === undefined
      ? ''
      : change.applied
        ? ` → state ${change.previous ?? '(new)'} → ${change.current ?? '?'}`
        : ` → IGNORED (${change.ignored ?? 'ignored'}: already ${change.current ?? '?'})`;
  return `${String(receipt.status)} message ${short(receipt.gstId)}${outcome}`;
}

const describeSession = (session: SessionStatus): string =>
  `${session.messagingNumber} ${session.statusType}${quote(session.status)}`;

function describeEvent(event: PartnerEvent, optedOut: ReadonlySet<string>): string {
  if (event.eventType === 'USER_PREFERENCE' && 'waId' in event) {
    const waId = String(event.waId);
    const category = 'category' in event && typeof event.category === 'string' ? ` (${event.category})` : '';
    const value = 'preferenceValue' in event ? String(event.preferenceValue) : '?';
    return `USER_PREFERENCE ${waId} ${value}${category}${optedOut.has(waId) ? ' → no more marketing to this user' : ''}`;
  }
  return String(event.eventType);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error === undefined ? resolve() : reject(error)));
    server.closeAllConnections();
  });
}

/**
 * The demo: the emulator and an example receiver app (Express + createWebhookRouter) start
 * together on 127.0.0.1 port 0; the demo configures the webhook through the emulator's API as a
 * user would, plays a scripted scenario, prints a timeline of the receiver's typed callbacks,
 * and shuts everything down. Resolves with what it saw and whether its checks passed.
 *
 * @example
 * const result = await runDemo({ write: (line) => process.stdout.write(`${line}\n`) });
 * process.exitCode = result.ok ? 0 : 1;
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const write = options.write ?? (() => undefined);
  const counts: Record<DemoCallback, number> = {
    onIncoming: 0,
    onChatbot: 0,
    onStatus: 0,
    onSession: 0,
    onEvent: 0,
  };
  const ignoredReceipts: string[] = [];
  const optedOut = new Set<string>();
  const checks: DemoCheck[] = [];
  const check = (name: string, ok: boolean): void => {
    checks.push({ name, ok });
  };

  const emulator: Emulator = createEmulator({
    clock: START,
    retry: { attempts: 1 },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const time = (): string => new Date(emulator.clock.now()).toISOString().slice(11, 19);
  const show = (callback: DemoCallback, text: string): void => {
    counts[callback] += 1;
    write(`  ${time()}  ◀ ${callback.padEnd(10)} ${text}`);
  };
  const capture: JsonlCapture | undefined =
    options.capture === undefined ? undefined : createJsonlCapture({ file: options.capture });

  // The example receiver app: what a user of the library writes.
  const router: WebhookRouter = createWebhookRouter({
    onIncoming: (message) => show('onIncoming', describeIncoming(message)),
    onChatbot: (event, ctx) => show('onChatbot', describeChatbot(event, ctx)),
    onStatus: (receipt, ctx) => {
      if (ctx.delivery?.applied === false)
        ignoredReceipts.push(`${String(receipt.status)}:${ctx.delivery.ignored}`);
      show('onStatus', describeStatus(receipt, ctx));
    },
    onSession: (session) => show('onSession', describeSession(session)),
    onEvent: (event) => {
      if (event.eventType === 'USER_PREFERENCE' && 'waId' in event && 'preferenceValue' in event) {
        if (event.preferenceValue === 'stop') optedOut.add(String(event.waId));
        else optedOut.delete(String(event.waId));
      }
      show('onEvent', describeEvent(event, optedOut));
    },
    ...(capture === undefined ? {} : { capture }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const app = express();
  app.use('/webhooks', router);
  const receiver = createServer(app);

  let receiverUrl: string | undefined;
  try {
    const emulatorUrl = await emulator.listen(0, '127.0.0.1');
    receiverUrl = await listen(receiver);
    write(`Emulator  ${emulatorUrl}  (API key ${DEFAULT_API_KEYS.supervisor})`);
    write(
      `Inspector ${emulatorUrl}/  ` +
        (options.keepOpen === undefined
          ? '(closes when the demo ends: run with --keep-open to browse it)'
          : '(stays open after the demo until Ctrl+C)'),
    );
    write(`Receiver  ${receiverUrl}/webhooks  (Express + createWebhookRouter)`);

    const settle = async (): Promise<void> => {
      await emulator.idle();
      await router.idle();
    };
    const step = async (title: string, run: () => void | Promise<void>): Promise<void> => {
      emulator.advanceClock(2000);
      write('');
      write(`▶ ${title}`);
      await run();
      await settle();
    };
    const note = (text: string): void => write(`  ${time()}  · ${text}`);

    await step(
      'Configure the webhook (client default, chatbot payload v2) through the emulator API',
      async () => {
        const base = `${receiverUrl}/webhooks`;
        const body = {
          incomingMessageURL: `${base}/${WEBHOOK_PATHS.incoming}`,
          statusUpdateURL: `${base}/${WEBHOOK_PATHS.status}`,
          sessionStatusURL: `${base}/${WEBHOOK_PATHS.session}`,
          eventWebhookURL: `${base}/${WEBHOOK_PATHS.event}`,
          chatbotWebhookURL: `${base}/${WEBHOOK_PATHS.chatbot}`,
          chatbotIncludeOutgoing: true,
          chatbotStopOnAgentAssignment: true,
          chatbotPayloadVersion: 'v2',
        };
        const response = await fetch(`${emulatorUrl}/Messaging/MessagingClientWebHook`, {
          method: 'POST',
          headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const row = (await response.json()) as { id?: string };
        if (response.status !== 200) throw new Error(`webhook configuration failed: ${response.status}`);
        note(
          `POST /Messaging/MessagingClientWebHook → ${response.status}, id ${short(row.id)}: all five URLs, ` +
            'chatbotIncludeOutgoing, chatbotStopOnAgentAssignment, chatbotPayloadVersion v2',
        );
      },
    );

    let chatParticipantId = '';
    await step(
      `Customer ${EXAMPLE_CUSTOMER} writes to the Lite number ${SEED_LITE_NUMBER}: text, photo, location, button`,
      () => {
        chatParticipantId = emulator.customerMessage({
          number: SEED_LITE_NUMBER,
          from: EXAMPLE_CUSTOMER,
          profileName: 'Thandi',
          text: 'Hi! Where is my order #1042?',
        }).chatParticipantId;
        emulator.customerMessage({
          number: SEED_LITE_NUMBER,
          from: EXAMPLE_CUSTOMER,
          contentType: 'MEDIA',
          mediaUrl: 'https://media.example.test/parcel.jpg',
          caption: 'This is the box I got',
        });
        emulator.customerMessage({
          number: SEED_LITE_NUMBER,
          from: EXAMPLE_CUSTOMER,
          contentType: 'LOCATION',
          label: 'Home',
        });
        emulator.customerMessage({
          number: SEED_LITE_NUMBER,
          from: EXAMPLE_CUSTOMER,
          contentType: 'BUTTON',
          buttonText: 'Track my order',
          buttonPayload: 'TRACK_1042',
        });
      },
    );

    await step('The chatbot answers (OUTGOING events: chatbotIncludeOutgoing)', () => {
      emulator.botReply({ chatParticipantId, messageText: 'Your order #1042 is out for delivery today.' });
      emulator.customerMessage({
        number: SEED_LITE_NUMBER,
        from: EXAMPLE_CUSTOMER,
        text: 'Can I talk to a person?',
      });
    });

    const chatbotBeforeAssignment = counts.onChatbot;
    await step('Agent Ada takes the chat: chatbot events stop (chatbotStopOnAgentAssignment)', () => {
      const outcome = emulator.assignAgent({ chatParticipantId, userId: ADA, notify: true });
      const agent = outcome.agentId === null ? undefined : emulator.state.users.get(outcome.agentId);
      const name = agent === undefined ? short(outcome.agentId) : `${agent.firstName} ${agent.lastName}`;
      note(`assigned to ${name}; the assignment's own chatbot event is held back too`);
      emulator.customerMessage({
        number: SEED_LITE_NUMBER,
        from: EXAMPLE_CUSTOMER,
        text: 'Thanks Ada, the box is damaged.',
      });
    });
    check('no chatbot event after the agent assignment', counts.onChatbot === chatbotBeforeAssignment);
    note(`onChatbot calls since the assignment: ${counts.onChatbot - chatbotBeforeAssignment}`);

    let gstId = '';
    await step(
      'An outbound message: ACCEPTED → SENT → DELIVERED → READ, the DELIVERED receipt arriving late',
      async () => {
        gstId = emulator.sendMessage({ number: SEED_LITE_NUMBER, to: EXAMPLE_CUSTOMER }).message.gstId;
        await settle();
        emulator.updateMessageStatus({ gstId, status: 'SENT' });
        await settle();
        // The outOfOrder fault holds DELIVERED back until READ has gone out: the receiver sees READ first.
        emulator.updateMessageStatus({ gstId, status: 'DELIVERED', faults: [{ kind: 'outOfOrder' }] });
        emulator.updateMessageStatus({ gstId, status: 'READ' });
      },
    );
    check(
      'the late DELIVERED receipt was ignored by ctx.delivery',
      ignoredReceipts.includes('DELIVERED:regression'),
    );

    await step('The customer reacts to that message', () => {
      emulator.customerMessage({
        number: SEED_LITE_NUMBER,
        from: EXAMPLE_CUSTOMER,
        contentType: 'REACTION',
        text: '👍',
        reactedToGstId: gstId,
      });
    });

    await step(`The Lite number's session connects, then is disconnected`, async () => {
      emulator.sessionChange({ number: SEED_LITE_NUMBER, status: 'Connecting...' });
      await settle();
      emulator.sessionChange({
        number: SEED_LITE_NUMBER,
        status: 'Sync Complete. You can now send messages',
      });
      await settle();
      emulator.sessionChange({
        number: SEED_LITE_NUMBER,
        status: 'Disconnected: Logged in on another device',
      });
      await settle();
      try {
        emulator.customerMessage({ number: SEED_LITE_NUMBER, from: EXAMPLE_CUSTOMER, text: 'Hello?' });
        check('messaging stops while disconnected', false);
      } catch (error) {
        if (!(error instanceof EmulatorError)) throw error;
        check('messaging stops while disconnected', true);
        note(`the platform refuses further messages: ${error.message}`);
      }
    });

    await step('The customer opts out of marketing (partner event USER_PREFERENCE stop)', () => {
      emulator.partnerEvent({
        eventType: 'USER_PREFERENCE',
        messagingNumber: SEED_LITE_NUMBER,
        waId: EXAMPLE_CUSTOMER.replace('+', ''),
        category: 'MARKETING',
        preferenceValue: 'stop',
      });
    });
    check('the opt-out was recorded', optedOut.has(EXAMPLE_CUSTOMER.replace('+', '')));

    const stats = router.stats();
    const failedDeliveries = emulator.deliveries({ state: 'failed' }).length;
    check('every delivery was acknowledged', failedDeliveries === 0);
    for (const callback of DEMO_CALLBACKS) check(`${callback} was called`, counts[callback] > 0);

    write('');
    write('Summary');
    write(`  callbacks: ${DEMO_CALLBACKS.map((name) => `${name} ${counts[name]}`).join(', ')}`);
    write(
      `  deliveries: ${emulator.deliveries().length} sent by the emulator, ${failedDeliveries} failed; ` +
        `receiver: ${stats.total.acked} acknowledged, ${stats.total.invalid} invalid, ${stats.total.duplicates} duplicates`,
    );
    for (const { name, ok } of checks) write(`  ${ok ? '✓' : '✗'} ${name}`);
    if (options.keepOpen !== undefined) {
      write('');
      write(`The emulator and the receiver stay open: inspector ${emulatorUrl}/ (Ctrl+C to stop)`);
      write(`  messaging-webhooks logs --emulator ${emulatorUrl}`);
      await options.keepOpen();
    }
  } finally {
    await router.close(5000);
    await emulator.close();
    if (receiver.listening) await closeServer(receiver);
    await capture?.close();
  }
  if (capture !== undefined && options.capture !== undefined) {
    write(`  captured ${capture.written} requests to ${options.capture}`);
  }
  write('Shut down cleanly.');
  return {
    ok: checks.every((item) => item.ok),
    checks,
    callbacks: counts,
    captured: capture?.written,
  };
}
