/**
 * `messaging-webhooks trigger <kind> [--field value...]`: sends one event from a running
 * emulator through its `/_emulator` control routes, so the emulator validates every field as it
 * validates any HTTP trigger (an invalid field is its 400, printed). This module only lists the
 * kinds and their fields and talks HTTP: it loads neither the emulator nor zod, so building the
 * program's options (and `--help`) stays cheap.
 */
import { InvalidArgumentError } from 'commander';
import { answeredDuplicate } from '../pipeline/answered-duplicate.js';
import { EXAMPLE_CUSTOMER, SEED_LITE_NUMBER } from '../emulator/state/seed-numbers.js';
import { readFile } from 'node:fs/promises';
import { maskUrl } from '../util/secrets.js';
import { CliError, messageOf, type CliIo } from './output.js';

/** How an option's text becomes a JSON value of the trigger's body. */
export type FieldType = 'string' | 'number' | 'boolean' | 'json';

/** One `--flag <value>` of a trigger kind: the body field it sets (a dotted path for nested ones). */
export interface TriggerField {
  /** The option, kebab-case: `--chat-participant-id`. */
  readonly flag: string;
  /** The body field: `chatParticipantId`, or `template.name` for a nested one. */
  readonly field: string;
  readonly type: FieldType;
  readonly description: string;
  /** The value sent when the option is not given. */
  readonly default?: string | number | boolean;
}

/** The emulator's control route a field is sent to (a kind can make two calls). */
export type TriggerStep =
  'customer-message' | 'bot-reply' | 'messages' | 'status' | 'sessions' | 'partner-events';

/** A trigger kind: its description and, per control route it calls, its fields. */
export interface TriggerKind {
  readonly description: string;
  readonly fields: Readonly<Partial<Record<TriggerStep, readonly TriggerField[]>>>;
  readonly help: string;
}

const f = (
  flag: string,
  type: FieldType,
  description: string,
  defaultValue?: string | number | boolean,
  field = flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()),
): TriggerField => ({
  flag,
  field,
  type,
  description,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
});

/** The seed's Lite number of client demo (sessions need a Lite number). */
const faultsField = f('faults', 'json', 'faults for these deliveries, JSON, e.g. \'[{"kind":"duplicate"}]\'');
const undocumentedField = f(
  'undocumented',
  'boolean',
  'skip the documented enums and formats (drift simulation)',
);

const CUSTOMER_FIELDS: readonly TriggerField[] = [
  f('number', 'string', 'your number: msisdn, link id or messaging number id', SEED_LITE_NUMBER),
  f('from', 'string', "the customer's phone number (E.164)", EXAMPLE_CUSTOMER),
  f('content-type', 'string', 'TEXT, MEDIA, LOCATION, BUTTON, INTERACTIVE, CAROUSEL, CONTACT or REACTION'),
  f('text', 'string', 'the text (TEXT), the emoji (REACTION)', 'Hi'),
  f('profile-name', 'string', "the customer's profile name"),
  f('username', 'string', "the customer's username"),
  f('user-id', 'string', "the customer's BSUID for a new chat"),
  f('media-url', 'string', 'MEDIA: the media URL'),
  f('caption', 'string', 'MEDIA: the caption'),
  f('file-extension', 'string', 'MEDIA: the file extension'),
  f('latitude', 'string', 'LOCATION'),
  f('longitude', 'string', 'LOCATION'),
  f('label', 'string', 'LOCATION'),
  f('address', 'string', 'LOCATION'),
  f('button-text', 'string', 'BUTTON, INTERACTIVE, CAROUSEL'),
  f('button-payload', 'string', 'BUTTON, INTERACTIVE, CAROUSEL'),
  f('contact', 'json', 'CONTACT: {"name":"...","phone":"..."}'),
  f('reacted-to-gst-id', 'string', 'REACTION: the gstId of the reacted-to message'),
  f('message-type', 'string', 'INTERACTION or CONVERSATION (billing model)'),
  f('ct-id', 'string', 'click-to-chat id'),
  f('body-parameters', 'json', 'template body parameters, JSON object'),
  f('quoted-message-id', 'string', 'v2 chatbot payload: the quoted message'),
  f('quoted-text', 'string', 'v2 chatbot payload: the quoted text'),
  faultsField,
  undocumentedField,
];

/** The kinds, by name: each sends what the control route of the same event takes. */
export const TRIGGER_KINDS = {
  'customer-message': {
    description: 'a customer sends a message to one of your numbers (incoming, and chatbot when configured)',
    fields: { 'customer-message': CUSTOMER_FIELDS },
    help: "  messaging-webhooks trigger customer-message --from +27831234567 --text 'Where is my order?'",
  },
  'status-change': {
    description:
      'a delivery status update: of --gst-id, or of a new outbound message (ACCEPTED) walked to --status',
    fields: {
      messages: [
        f('number', 'string', 'new message: your number', SEED_LITE_NUMBER),
        f('to', 'string', "new message: the customer's phone number (E.164)", EXAMPLE_CUSTOMER),
        f('voice', 'boolean', 'new message: a voice note (only those reach PLAYED)'),
        f('template-name', 'string', 'new message: a template send', undefined, 'template.name'),
        f('template-id', 'string', 'new message: the template id (UUID)', undefined, 'template.id'),
        f('ct-id', 'string', 'new message: click-to-chat id'),
        f('conversation-ct-id', 'string', 'new message: conversation click-to-chat id'),
        undocumentedField,
      ],
      status: [
        f('gst-id', 'string', 'the outbound message (default: a new one)'),
        f(
          'status',
          'string',
          'SENT, DELIVERED, READ, PLAYED or FAILED (default for a new message: DELIVERED)',
        ),
        f('error-code', 'string', 'FAILED: numeric error code'),
        f('error-code-string', 'string', 'FAILED: error text'),
        faultsField,
      ],
    },
    help:
      '  messaging-webhooks trigger status-change --status READ\n' +
      '  messaging-webhooks trigger status-change --gst-id <gstId> --status FAILED --error-code 131026',
  },
  'chatbot-turn': {
    description:
      "a chatbot turn: the customer's message (INCOMING) then the bot's reply (OUTGOING), or the reply alone in --chat-participant-id",
    fields: {
      'customer-message': [
        f('number', 'string', 'new turn: your number', SEED_LITE_NUMBER),
        f('from', 'string', "new turn: the customer's phone number (E.164)", EXAMPLE_CUSTOMER),
        f('text', 'string', "new turn: the customer's text", 'Hi'),
      ],
      'bot-reply': [
        f('chat-participant-id', 'string', 'reply in this chat (default: the chat of the customer message)'),
        f('message-type', 'string', 'the reply widget type (default TEXT)'),
        f('message-text', 'string', "the bot's text", 'How can I help?'),
        f('media-url', 'string', "the reply's media URL"),
        f('widgets', 'json', 'a multi-widget reply, JSON array'),
        faultsField,
        undocumentedField,
      ],
    },
    help: "  messaging-webhooks trigger chatbot-turn --text 'Hi' --message-text 'Hello! How can I help?'",
  },
  'session-change': {
    description: "a Lite number's session status changes (connecting, success, disconnected)",
    fields: {
      sessions: [
        f('number', 'string', 'a Lite number', SEED_LITE_NUMBER),
        f('status', 'string', "a documented status string, e.g. 'Disconnected'"),
        f(
          'status-type',
          'string',
          'connecting, success or disconnected (default connecting when no --status)',
        ),
        faultsField,
      ],
    },
    help: '  messaging-webhooks trigger session-change --status-type connecting\n  messaging-webhooks trigger session-change --status-type success',
  },
  'partner-event': {
    description: 'a partner event (eventWebhookURL); without fields, the example fields of --event-type',
    fields: {
      'partner-events': [
        f(
          'event-type',
          'string',
          'PHONE_QUALITY_CHANGED, TEMPLATE_STATUS_CHANGED, ...',
          'PHONE_QUALITY_CHANGED',
        ),
        f('messaging-number', 'string', 'your number', SEED_LITE_NUMBER),
        f('timestamp', 'number', 'Unix ms (default: the emulator clock)'),
        ...[
          'quality-rating',
          'messaging-limit-tier',
          'channel-status',
          'template-name',
          'template-status',
          'rejected-reason',
          'previous-quality-score',
          'new-quality-score',
          'template-language',
          'template-element',
          'wa-id',
          'category',
          'preference-value',
          'old-number',
          'new-number',
        ].map((flag) => f(flag, 'string', 'a field of the event type')),
        faultsField,
        undocumentedField,
      ],
    },
    help: '  messaging-webhooks trigger partner-event --event-type TEMPLATE_STATUS_CHANGED --template-name welcome --template-status REJECTED --rejected-reason spam',
  },
} as const satisfies Record<string, TriggerKind>;

export type TriggerKindName = keyof typeof TRIGGER_KINDS;

/** Every field of a kind once (a flag shared by two steps, like --number, is one option). */
export function kindFields(kind: TriggerKindName): TriggerField[] {
  const seen = new Map<string, TriggerField>();
  for (const fields of Object.values<readonly TriggerField[]>(TRIGGER_KINDS[kind].fields)) {
    for (const field of fields) if (!seen.has(field.flag)) seen.set(field.flag, field);
  }
  return [...seen.values()];
}

/**
 * The option's text as the body value: a number when it reads as one (else the text, so the
 * emulator's 400 names the field), JSON parsed (a commander error when it is not JSON).
 */
export function parseFieldValue(type: FieldType, text: string): unknown {
  if (type === 'number') return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
  if (type === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new InvalidArgumentError('expected JSON');
    }
  }
  return text;
}

/** The commander option values of a trigger command: camelCased flags. */
export type TriggerOptions = Readonly<Record<string, unknown>> & {
  readonly emulator: string;
  readonly wait: boolean;
  /** `--payload <file>`: the kind's fields as JSON (`-`: standard input). */
  readonly payload?: string | undefined;
  /** `--show-secrets`: delivery URLs with their tokens. */
  readonly showSecrets?: boolean | undefined;
};

/** The body of one step: `extra` (a payload file's unknown fields), the given options, and the defaults of fields not given. */
function bodyOf(
  fields: readonly TriggerField[],
  options: TriggerOptions,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...extra };
  for (const field of fields) {
    const key = field.flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const value = options[key] ?? field.default;
    if (value === undefined) continue;
    const path = field.field.split('.');
    let target = body;
    for (const part of path.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[path[path.length - 1] ?? field.field] = value;
  }
  return body;
}

/** A delivery as the emulator's log has it (the fields printed). */
export interface Delivery {
  readonly id: string;
  readonly sequence: number;
  readonly type: string;
  readonly url: string;
  readonly state: string;
  readonly attempts: number;
  readonly responseStatus: number | null;
  readonly latencyMs: number | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly duplicateOf: string | null;
  /** The delivery this one resends, when it is a resend. */
  readonly resendOf?: string | null;
}

/** An error answer of the emulator, printed as one line: status, code, message. */
class EmulatorRefusal extends CliError {}

/** Calls the emulator's control surface: its JSON answer, or a CliError naming the refusal or the missing emulator. */
export async function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : messageOf(cause ?? error);
    throw new CliError(
      `no emulator at ${base} (${why}): start one with \`messaging-webhooks emulator\`, or pass --emulator <url>`,
      1,
      { cause: error },
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = parsed as { code?: string; message?: string; field?: string } | undefined;
    const what =
      typeof error?.message === 'string'
        ? `${error.code ?? ''}: ${error.message}`
        : `: ${text.slice(0, 300)}`;
    throw new EmulatorRefusal(`the emulator refused ${method} ${path}: ${response.status} ${what}`);
  }
  return parsed;
}

/**
 * The statuses after ACCEPTED, in their documented order: DELIVERY_PROGRESS of schemas/status.ts,
 * written out because importing it would load zod (see the top of this file);
 * test/cli/trigger.test.ts holds the two equal.
 */
export const STATUS_PROGRESS: readonly string[] = ['SENT', 'DELIVERED', 'READ', 'PLAYED'];

/** The documented path to a status from ACCEPTED (FAILED comes after SENT). */
function statusPath(target: string): string[] {
  if (target === 'FAILED') return ['SENT', 'FAILED'];
  const index = STATUS_PROGRESS.indexOf(target);
  // anything else goes as given: the emulator names the field and the allowed values
  return index === -1 ? [target] : STATUS_PROGRESS.slice(0, index + 1);
}

/** What one trigger did: the control route answers' deliveries, with labels. */
interface Emitted {
  readonly label: string;
  readonly deliveries: readonly Delivery[];
  /** Why there may be no delivery (printed when there is none). */
  readonly hint: string;
}

const noConfig = (number: unknown, type: string, base: string): string =>
  `not delivered: no ${type} URL applies to ${String(number)} (configure one in the inspector ${base}/#configs or start the emulator with --forward-to <receiver-url>)`;

/** The value at a dotted path of a JSON object (`template.name`), or undefined. */
function valueAt(json: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = json;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * Reads `--payload <file>` (`-`: standard input): a JSON object of the kind's body fields, as
 * its control route takes them. Options given on the command line win over the file's values;
 * fields the kind does not know go to its main control route as they are, so the emulator's
 * validation names them.
 */
async function withPayload(
  kind: TriggerKindName,
  options: TriggerOptions,
  file: string,
  stdin: () => Promise<string>,
): Promise<{ options: TriggerOptions; extra: Record<string, unknown> }> {
  let text: string;
  const where = file === '-' ? 'standard input' : file;
  try {
    text = file === '-' ? await stdin() : await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      `--payload: cannot read ${where}: ${code === 'ENOENT' ? 'no such file' : messageOf(error)}`,
      1,
      {
        cause: error,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`--payload: ${where} is not JSON: ${messageOf(error)}`, 1, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CliError(`--payload: ${where}: expected a JSON object of the ${kind} fields`);
  }
  const record = json as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...options };
  const consumed = new Set<string>();
  for (const field of kindFields(kind)) {
    const key = field.flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const value = valueAt(record, field.field);
    consumed.add(field.field.split('.')[0] ?? field.field);
    if (value !== undefined && merged[key] === undefined) merged[key] = value;
  }
  const extra = Object.fromEntries(Object.entries(record).filter(([name]) => !consumed.has(name)));
  return { options: merged as TriggerOptions, extra };
}

/** Reads all of standard input as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The control route of each kind that takes the fields a payload file adds. */
const MAIN_STEP: Record<TriggerKindName, TriggerStep> = {
  'customer-message': 'customer-message',
  'status-change': 'status',
  'chatbot-turn': 'bot-reply',
  'session-change': 'sessions',
  'partner-event': 'partner-events',
};

/** Runs the kind's control calls in order. */
async function emit(
  kind: TriggerKindName,
  options: TriggerOptions,
  extra: Readonly<Record<string, unknown>>,
): Promise<Emitted[]> {
  const base = options.emulator;
  const fields = TRIGGER_KINDS[kind].fields as Partial<Record<TriggerStep, readonly TriggerField[]>>;
  const body = (step: TriggerStep): Record<string, unknown> =>
    bodyOf(fields[step] ?? [], options, step === MAIN_STEP[kind] ? extra : {});
  type WithDeliveries = { deliveries: Delivery[] };
  switch (kind) {
    case 'customer-message': {
      const input = body('customer-message');
      const result = (await call(base, 'POST', '/_emulator/customer-message', input)) as WithDeliveries & {
        chatParticipantId: string;
        gstId: string;
      };
      return [
        {
          label: `customer message from ${String(input.from)} to ${String(input.number)}: chat ${result.chatParticipantId}, gstId ${result.gstId}`,
          deliveries: result.deliveries,
          hint: noConfig(input.number, 'incoming message', base),
        },
      ];
    }
    case 'chatbot-turn': {
      const emitted: Emitted[] = [];
      const reply = body('bot-reply');
      if (reply.chatParticipantId === undefined) {
        const input = body('customer-message');
        const result = (await call(base, 'POST', '/_emulator/customer-message', input)) as WithDeliveries & {
          chatParticipantId: string;
        };
        reply.chatParticipantId = result.chatParticipantId;
        emitted.push({
          label: `customer message from ${String(input.from)} to ${String(input.number)} (INCOMING): chat ${result.chatParticipantId}`,
          deliveries: result.deliveries,
          hint: noConfig(input.number, 'incoming message or chatbot', base),
        });
      }
      const result = (await call(base, 'POST', '/_emulator/bot-reply', reply)) as WithDeliveries & {
        payload?: unknown;
      };
      emitted.push({
        label: `bot reply in chat ${String(reply.chatParticipantId)} (OUTGOING)`,
        deliveries: result.deliveries,
        hint:
          result.payload === undefined
            ? 'no chatbot event: the configuration has chatbotIncludeOutgoing false (or no chatbotWebhookURL), or an agent holds the chat with chatbotStopOnAgentAssignment'
            : noConfig('the chat', 'chatbot', base),
      });
      return emitted;
    }
    case 'status-change': {
      const update = body('status');
      const emitted: Emitted[] = [];
      let steps: string[];
      let gstId = update.gstId;
      if (gstId === undefined) {
        const input = body('messages');
        const sent = (await call(base, 'POST', '/_emulator/messages', input)) as WithDeliveries & {
          message: { gstId: string };
        };
        gstId = sent.message.gstId;
        emitted.push({
          label: `outbound message ${String(gstId)} to ${String(input.to)}: ACCEPTED`,
          deliveries: sent.deliveries,
          hint: noConfig(input.number, 'status update', base),
        });
        steps = statusPath(typeof update.status === 'string' ? update.status : 'DELIVERED');
      } else {
        if (typeof update.status !== 'string')
          throw new CliError('status-change --gst-id needs --status (the next status)');
        steps = [update.status];
      }
      const { gstId: _omitted, ...rest } = update;
      for (const [index, status] of steps.entries()) {
        // the fields given (errorCode, faults...) are the target status's; the steps before it plain
        const fields = index === steps.length - 1 ? rest : {};
        const result = (await call(
          base,
          'POST',
          `/_emulator/messages/${encodeURIComponent(String(gstId))}/status`,
          { ...fields, status },
        )) as WithDeliveries;
        emitted.push({
          label: `message ${String(gstId)}: ${status}`,
          deliveries: result.deliveries,
          hint: noConfig('its number', 'status update', base),
        });
      }
      return emitted;
    }
    case 'session-change': {
      const input = body('sessions');
      if (input.status === undefined && input.statusType === undefined) input.statusType = 'connecting';
      const result = (await call(base, 'POST', '/_emulator/sessions', input)) as WithDeliveries & {
        number: string;
        status: string;
      };
      return [
        {
          label: `session of ${result.number}: ${result.status}`,
          deliveries: result.deliveries,
          hint: noConfig(result.number, 'session status', base),
        },
      ];
    }
    case 'partner-event': {
      const input = body('partner-events');
      const common = new Set(['eventType', 'messagingNumber', 'timestamp', 'faults', 'undocumented']);
      if (Object.keys(input).every((key) => common.has(key))) {
        const { PARTNER_EVENT_EXAMPLES } = await import('../emulator/examples.js');
        Object.assign(
          input,
          PARTNER_EVENT_EXAMPLES[input.eventType as keyof typeof PARTNER_EVENT_EXAMPLES] ?? {},
        );
      }
      const result = (await call(base, 'POST', '/_emulator/partner-events', input)) as WithDeliveries & {
        payload: unknown;
      };
      return [
        {
          label: `partner event ${JSON.stringify(result.payload)}`,
          deliveries: result.deliveries,
          hint: noConfig(input.messagingNumber, 'event', base),
        },
      ];
    }
  }
}

/** What became of a delivery: its state, with the answer (or why there was none), latency and attempts. */
export function deliveryOutcome(d: Delivery): string {
  return d.state === 'delivered' || d.state === 'failed'
    ? `${d.state} ${d.responseStatus === null ? `(${d.error ?? 'no response'})` : String(d.responseStatus)}` +
        (d.latencyMs === null ? '' : ` ${d.latencyMs} ms`) +
        (d.attempts > 1 ? `, ${d.attempts} attempts` : '')
    : d.state;
}

/**
 * Waits until the emulator has nothing in flight, then reads the newest page of its delivery log
 * (a duplicate fault makes an entry of its own after the trigger answered: the newest page has it).
 */
export async function settledDeliveries(base: string, showSecrets: boolean): Promise<Delivery[]> {
  await call(base, 'POST', '/_emulator/idle', {});
  const page = (await call(
    base,
    'GET',
    `/_emulator/deliveries?order=desc&limit=1000${showSecrets ? '&reveal=true' : ''}`,
  )) as { items: Delivery[] };
  return page.items;
}

/** One line per delivery: what the receiver answered, or why there was no answer; its URL's token masked unless `reveal`. */
export function describeDelivery(d: Delivery, reveal = false): string {
  const outcome = deliveryOutcome(d);
  const duplicate = answeredDuplicate(d.responseStatus, d.responseBody)
    ? ' (the receiver answered: duplicate)'
    : '';
  return `  #${d.sequence} ${d.type.padEnd(8)} → ${reveal ? d.url : maskUrl(d.url)}  ${outcome}${duplicate}`;
}

/**
 * Runs `trigger <kind>`: the control calls, then (unless --no-wait) waits for the emulator's
 * deliveries and prints each one's outcome. Resolves false when a delivery failed.
 */
export async function triggerCommand(
  kind: TriggerKindName,
  given: TriggerOptions,
  io: CliIo,
  stdin: () => Promise<string> = readStdin,
): Promise<boolean> {
  const { options, extra } =
    typeof given.payload === 'string'
      ? await withPayload(kind, given, given.payload, stdin)
      : { options: given, extra: {} };
  const emitted = await emit(kind, options, extra);
  let ok = true;
  const recent = options.wait ? await settledDeliveries(options.emulator, options.showSecrets === true) : [];
  for (const step of emitted) {
    io.out(step.label);
    if (step.deliveries.length === 0) io.out(`  ${step.hint}`);
    for (const queued of step.deliveries) {
      const delivery = recent.find((d) => d.id === queued.id) ?? queued;
      const copies = recent.filter((d) => d.duplicateOf === queued.id).reverse();
      for (const entry of [delivery, ...copies]) {
        if (entry.state === 'failed') ok = false;
        io.out(describeDelivery(entry, options.showSecrets === true));
      }
    }
  }
  return ok;
}
