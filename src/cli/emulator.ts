import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pino } from 'pino';
import {
  createEmulator,
  DEFAULT_API_KEYS,
  SnapshotError,
  type DeliveryAttempt,
  type Emulator,
  type EmulatorSnapshotInput,
} from '../emulator/index.js';
import { createPlatformClient, PlatformError } from '../client/index.js';
import {
  WEBHOOK_PATHS,
  WEBHOOK_TYPES,
  WEBHOOK_URL_FIELDS,
  type ChatbotPayloadVersion,
  type WebhookType,
  type WebhookUrlField,
} from '../schemas/index.js';
import { maskKey, maskUrl } from '../util/secrets.js';
import { CliError, messageOf, type CliIo } from './output.js';
import { readRegularFile, writeFileAtomically } from '../util/files.js';

import { CLI_CONCURRENCY, DEFAULT_EMULATOR_PORT, DEFAULT_EMULATOR_URL } from './defaults.js';
import { EXAMPLE_CUSTOMER, SEED_LITE_NUMBER } from '../emulator/state/seed-numbers.js';

/** Options of the `emulator` command (as commander hands them over). */
export interface EmulatorCommandOptions {
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  /** Delivery attempts per event (1 = no retries). */
  readonly retryAttempts?: string | undefined;
  /** Log deliveries to stderr. */
  readonly verbose?: boolean | undefined;
  /** Deliveries in flight at once (commander parses it). */
  readonly deliveryConcurrency?: number | undefined;
  /** A snapshot file to start from. */
  readonly state?: string | undefined;
  /** Where to write a snapshot when the command stops. */
  readonly saveState?: string | undefined;
  /** More Host names to serve (`--allowed-host`, repeatable), e.g. a container's name. */
  readonly allowedHost?: readonly string[] | undefined;
  /** `--clock`: `real-time` (commander's default) or `manual`. @default 'real-time' */
  readonly clock?: 'real-time' | 'manual' | undefined;
  /** `--forward-to`: the receiver's base URL; every client's default gets `<base>/<type path>`. */
  readonly forwardTo?: string | undefined;
  /** `--token`: the receiver's token, put in the configured URLs as `?token=`. */
  readonly token?: string | undefined;
  /** `--header 'Name: value'` (repeatable), sent with every delivery. */
  readonly header?: Readonly<Record<string, string>> | undefined;
  /** `--forward-<type>-to <url>`: one type's URL, instead of (or without) `--forward-to`'s. */
  readonly forwardIncomingTo?: string | undefined;
  readonly forwardStatusTo?: string | undefined;
  readonly forwardSessionTo?: string | undefined;
  readonly forwardEventTo?: string | undefined;
  readonly forwardChatbotTo?: string | undefined;
  /** `--chatbot-payload-version`: the configuration's `chatbotPayloadVersion`. */
  readonly chatbotPayloadVersion?: ChatbotPayloadVersion | undefined;
  /** `--chatbot-include-outgoing`: the configuration's `chatbotIncludeOutgoing`. */
  readonly chatbotIncludeOutgoing?: boolean | undefined;
  /** `--chatbot-stop-on-agent-assignment`: the configuration's `chatbotStopOnAgentAssignment`. */
  readonly chatbotStopOnAgentAssignment?: boolean | undefined;
  /** `--show-secrets`: print the token and the API keys in full. */
  readonly showSecrets?: boolean | undefined;
}

/** The option of each type's own forward target (`--forward-chatbot-to`), as commander names it. */
const FORWARD_TYPE_OPTIONS = {
  incoming: 'forwardIncomingTo',
  status: 'forwardStatusTo',
  session: 'forwardSessionTo',
  event: 'forwardEventTo',
  chatbot: 'forwardChatbotTo',
} as const satisfies Record<WebhookType, keyof EmulatorCommandOptions>;

/** The chatbot fields of the configuration `--forward-to` creates, as given on the command line. */
type ChatbotFields = Partial<{
  chatbotPayloadVersion: ChatbotPayloadVersion;
  chatbotIncludeOutgoing: boolean;
  chatbotStopOnAgentAssignment: boolean;
}>;

/** The receiver's query parameter for its token (`tokenQueryParam`'s default). */
const TOKEN_QUERY_PARAM = 'token';

/**
 * The URL fields of a configuration forwarding every type to `base`: the paths the receiver
 * mounts by default (WEBHOOK_PATHS: `/incoming`, `/status`, `/session`, `/events`, `/chatbot`).
 * The token goes in the URL (`?token=`), as with the platform itself: a configuration is a set
 * of URLs, and the receiver reads its token from the query as well as from its header.
 */
function forwardingUrls(options: EmulatorCommandOptions): Partial<Record<WebhookUrlField, string>> {
  const { token, forwardTo } = options;
  const withToken = (url: string): string =>
    token === undefined
      ? url
      : `${url}${url.includes('?') ? '&' : '?'}${TOKEN_QUERY_PARAM}=${encodeURIComponent(token)}`;
  const urls: Partial<Record<WebhookUrlField, string>> = {};
  for (const type of WEBHOOK_TYPES) {
    const own = options[FORWARD_TYPE_OPTIONS[type]];
    const url = own ?? (forwardTo === undefined ? undefined : `${forwardTo}/${WEBHOOK_PATHS[type]}`);
    if (url !== undefined) urls[WEBHOOK_URL_FIELDS[type]] = withToken(url);
  }
  return urls;
}

/** The chatbot fields given on the command line (the others stay the platform's defaults). */
function chatbotFields(options: EmulatorCommandOptions): ChatbotFields {
  return {
    ...(options.chatbotPayloadVersion === undefined
      ? {}
      : { chatbotPayloadVersion: options.chatbotPayloadVersion }),
    ...(options.chatbotIncludeOutgoing === undefined
      ? {}
      : { chatbotIncludeOutgoing: options.chatbotIncludeOutgoing }),
    ...(options.chatbotStopOnAgentAssignment === undefined
      ? {}
      : { chatbotStopOnAgentAssignment: options.chatbotStopOnAgentAssignment }),
  };
}

/**
 * `--forward-to`: gives every client a default webhook configuration forwarding each type to
 * the receiver, through the emulator's own configuration API (same validation as a user's
 * call), with the key of one of the client's users. A default the state already has (from
 * `--state`) is updated, not duplicated (scope rule 5).
 */
async function forwardWebhooks(
  emulator: Emulator,
  url: string,
  urls: Partial<Record<WebhookUrlField, string>> & ChatbotFields,
): Promise<string[]> {
  const configured: string[] = [];
  for (const client of emulator.state.clients.values()) {
    const user = [...emulator.state.usersOfClient(client.id)].find((u) => !u.disabled && !u.deleted);
    if (user === undefined) continue;
    const { webhooks } = createPlatformClient({
      baseUrl: url,
      apiKey: user.apiKey,
      messagingPrefix: emulator.prefixes.messaging,
    });
    const existing = emulator.state.webhookConfigOf(client.id, null);
    try {
      await (existing === undefined ? webhooks.create(urls) : webhooks.update({ id: existing.id, ...urls }));
    } catch (error) {
      const why =
        error instanceof PlatformError ? `${error.status} ${JSON.stringify(error.body)}` : messageOf(error);
      throw new CliError(
        `--forward-to: the emulator refused the configuration of client ${client.clientRef}: ${why}`,
        1,
        { cause: error },
      );
    }
    configured.push(client.clientRef);
  }
  return configured;
}

/** Largest `--state` file read: far above a full state at the default retention. */
const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;

/** Reads `--state`: a snapshot file (JSON), as `--save-state` or `GET /_emulator/snapshot` wrote it. */
function readStateFile(file: string): EmulatorSnapshotInput {
  let text: string;
  try {
    // a regular file only (a FIFO is refused at once, never waited on), no larger than a snapshot may be
    text = readRegularFile(file, MAX_STATE_FILE_BYTES);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'no such file' : messageOf(error);
    throw new CliError(`--state: cannot read ${file}: ${why}`, 1, { cause: error });
  }
  try {
    return JSON.parse(text) as EmulatorSnapshotInput;
  } catch (error) {
    throw new CliError(`--state: ${file} is not JSON: ${messageOf(error)}`, 1, { cause: error });
  }
}

/** `--save-state`: its directory must exist now, not only when the command stops. */
function checkSaveState(file: string): void {
  const directory = dirname(resolve(file));
  let isDirectory = false;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new CliError(`--save-state: no directory ${directory} to write ${file} in`);
}

/**
 * Stops the emulator (its deliveries finish first), then writes its snapshot to `--save-state`
 * when given: to a temporary file first, renamed over the target, so a stop half-way never
 * leaves half a snapshot.
 */
export async function stopEmulatorCommand(
  emulator: Emulator,
  options: Pick<EmulatorCommandOptions, 'saveState'>,
  io: CliIo,
): Promise<void> {
  await emulator.close();
  if (options.saveState === undefined) return;
  const snapshot = emulator.snapshot();
  // keys, passwords and phone numbers: 0600, through a fresh O_EXCL temporary file renamed over it
  writeFileAtomically(options.saveState, `${JSON.stringify(snapshot)}\n`);
  io.out(
    `State saved to ${options.saveState} (${snapshot.chatParticipants.length} chats, ${snapshot.messages.length} outbound messages)`,
  );
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EMULATOR_PORT;
  // digits only: Number() would read '' and '  ' as 0 (a random port), '0x50' as 80 and '1e3' as 1000
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65_535)) {
    throw new CliError(`--port: expected a port number 0-65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function parseAttempts(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const attempts = Number(value);
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new CliError(`--retry-attempts: expected an integer >= 1, got ${JSON.stringify(value)}`);
  }
  return attempts;
}

/**
 * One `--verbose` line per delivery attempt: type, URL, status code (or the error), attempt and
 * real milliseconds, e.g. `delivery incoming http://127.0.0.1:3000/in 200 attempt 1 12 ms`.
 */
function formatDeliveryAttempt(attempt: DeliveryAttempt, shownUrl: (url: string) => string): string {
  const outcome =
    attempt.status === null ? `error (${attempt.error ?? 'no response'})` : String(attempt.status);
  const drift = attempt.undocumented ? ' undocumented' : '';
  return `delivery ${attempt.type} ${shownUrl(attempt.url)} ${outcome} attempt ${attempt.attempt} ${attempt.ms} ms${drift}`;
}

/**
 * Starts the standalone emulator and prints its URL, the seeded API keys and numbers, and how to
 * configure a webhook with curl. Resolves with the running emulator; the caller stops it on
 * SIGINT/SIGTERM.
 */
export async function startEmulatorCommand(options: EmulatorCommandOptions, io: CliIo): Promise<Emulator> {
  const port = parsePort(options.port);
  const host = options.host ?? '127.0.0.1';
  const attempts = parseAttempts(options.retryAttempts);
  const forwarding =
    options.forwardTo !== undefined ||
    WEBHOOK_TYPES.some((type) => options[FORWARD_TYPE_OPTIONS[type]] !== undefined);
  if (options.token !== undefined && !forwarding) {
    throw new CliError('--token goes in the URLs --forward-to configures: give --forward-to <base-url> too');
  }
  const chatbot = chatbotFields(options);
  if (Object.keys(chatbot).length > 0 && !forwarding) {
    throw new CliError(
      '--chatbot-* set the configuration --forward-to creates: give --forward-to <base-url> (or --forward-chatbot-to <url>) too',
    );
  }
  // Secrets shown only on request: the receiver token, and API keys other than the documented seed's.
  const reveal = options.showSecrets === true;
  const seedKeys = new Set<string>(Object.values(DEFAULT_API_KEYS));
  const key = (apiKey: string): string => (reveal || seedKeys.has(apiKey) ? apiKey : maskKey(apiKey));
  const shownUrl = (target: string): string =>
    reveal ? target : maskUrl(target, options.token === undefined ? [] : [options.token]);
  if (options.saveState !== undefined) checkSaveState(options.saveState);
  const state = options.state === undefined ? undefined : readStateFile(options.state);
  let emulator: Emulator;
  try {
    emulator = createEmulator({
      ...(state === undefined ? {} : { state }),
      deliveryConcurrency: options.deliveryConcurrency ?? CLI_CONCURRENCY,
      allowedHosts: options.allowedHost ?? [],
      clock: options.clock ?? 'real-time',
      deliveryHeaders: options.header ?? {},
      ...(attempts === undefined ? {} : { retry: { attempts } }),
      ...(options.verbose === true
        ? {
            // the log lines leave through the CLI's writer, escaped like every other line
            logger: pino({ level: 'info' }, { write: (line: string) => io.err(line.trimEnd()) }),
            // A failed attempt's error may quote what the receiver answered: one line, escaped by io.
            onDeliveryAttempt: (attempt: DeliveryAttempt) =>
              io.err(formatDeliveryAttempt(attempt, shownUrl).replace(/[\r\n]+/g, ' ')),
          }
        : {}),
    });
  } catch (error) {
    if (error instanceof SnapshotError) {
      throw new CliError(`--state: ${options.state ?? ''}: ${error.message}`, 1, { cause: error });
    }
    throw error;
  }
  let url: string;
  try {
    url = await emulator.listen(port, host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`port ${port} on ${host} is already in use (--port 0 picks a free one)`, 1, {
        cause: error,
      });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new CliError(`cannot listen on host ${host}`, 1, { cause: error });
    throw new CliError(`cannot start the emulator: ${messageOf(error)}`, 1, { cause: error });
  }
  const description = emulator.describe();
  io.out(`Inspector: ${url}/  (open in a browser: scope, live delivery log, triggers)`);
  io.out(`Emulator listening on ${url}`);
  io.out(
    `API key: ${DEFAULT_API_KEYS.supervisor}  (supervisor of client demo; send it as the Authorization header)`,
  );
  const others = description.users.filter((user) => user.apiKey !== DEFAULT_API_KEYS.supervisor);
  if (others.length > 0) io.out('Other API keys:');
  for (const user of others)
    io.out(
      `  ${key(user.apiKey)}  (${user.email}, ${user.liveChatRole ?? user.role}, client ${user.clientRef})`,
    );
  for (const number of description.numbers) {
    io.out(
      `Number ${number.msisdn}  ${number.kind}  client ${number.clientRef}  messagingNumberId ${number.messagingNumberId}`,
    );
  }
  io.out(`Control surface: ${url}/_emulator  (state, triggers, deliveries, faults)`);
  if (options.state !== undefined) {
    io.out(
      `State from ${options.state}: ${emulator.state.chatParticipants.size} chats, ${emulator.state.messages.size} outbound messages`,
    );
  }
  io.out(
    `Deliveries: up to ${options.deliveryConcurrency ?? CLI_CONCURRENCY} at once (one conversation in order)` +
      (options.saveState === undefined ? '' : `; state saved to ${options.saveState} on exit`),
  );
  if (!forwarding) {
    io.out(
      'No webhook configured yet. Configure one in the inspector, with --forward-to <receiver-url>, or:',
    );
    io.out(
      `  curl -X POST ${url}/Messaging/MessagingClientWebHook -H 'authorization: ${DEFAULT_API_KEYS.supervisor}' ` +
        `-H 'content-type: application/json' -d '{"incomingMessageURL":"http://127.0.0.1:3000/webhooks/incoming"}'`,
    );
  } else {
    const urls = forwardingUrls(options);
    let clients: string[];
    try {
      clients = await forwardWebhooks(emulator, url, { ...urls, ...chatbot });
    } catch (error) {
      await emulator.close();
      throw error;
    }
    io.out(`Webhooks of client${clients.length === 1 ? '' : 's'} ${clients.join(', ')} forwarded to:`);
    for (const type of WEBHOOK_TYPES) {
      const target = urls[WEBHOOK_URL_FIELDS[type]];
      io.out(`  ${type.padEnd(8)} ${target === undefined ? '(not configured)' : shownUrl(target)}`);
    }
    io.out(
      `  chatbot payload ${chatbot.chatbotPayloadVersion ?? 'v1'}, outgoing events ${chatbot.chatbotIncludeOutgoing === true ? 'on' : 'off'}, ` +
        `stop on agent assignment ${chatbot.chatbotStopOnAgentAssignment === true ? 'on' : 'off'}`,
    );
    if (options.token !== undefined && !reveal) io.out('  (the token is masked: --show-secrets prints it)');
  }
  const headers = Object.keys(options.header ?? {});
  if (headers.length > 0)
    io.out(`Every delivery carries the header${headers.length === 1 ? '' : 's'} ${headers.join(', ')}`);
  io.out('Send a customer message:');
  const where = url === DEFAULT_EMULATOR_URL ? '' : ` --emulator ${url}`;
  io.out(`  messaging-webhooks trigger customer-message${where} --from ${EXAMPLE_CUSTOMER} --text Hi`);
  io.out(
    `  curl -X POST ${url}/_emulator/customer-message -H 'content-type: application/json' ` +
      `-d '${JSON.stringify({ number: SEED_LITE_NUMBER, from: EXAMPLE_CUSTOMER, text: 'Hi' })}'`,
  );
  io.out('Press Ctrl+C to stop.');
  return emulator;
}
