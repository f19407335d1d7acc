/**
 * Every default a doc states in an options table is the code's default.
 *
 * The docs state defaults in Markdown tables whose header has a `Default` column (`| Option |
 * Default | … |`, `| Kept | Default | … |`, `| Environment variable | Config file key | Default |
 * … |`), and in docs/redis.md's "Options at a glance" as `name` (default) pairs. This test reads
 * those tables and compares each row with the code:
 *
 * - the CLI's defaults through its `--help` (commander prints each option's default value, so
 *   what the help shows is what the program gets);
 * - the library's defaults by reading the source: the exported `DEFAULT_*` constant, or the
 *   `options.<name> ?? <default>` expression where the option is resolved, evaluated (a literal,
 *   a product of numbers, or a constant of the same file).
 *
 * Every row of a covered table must be either checked or listed in `unchecked` with the reason, so
 * a default added to a table without a check fails here. docs/receiver.md and docs/bots.md are read
 * only.
 */
import { readFileSync } from 'node:fs';
import { main } from '../../src/cli/program.js';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

// ----- Markdown tables -------------------------------------------------------------------------

/** Splits a table row into its cells (a `\|` inside a cell is not a separator). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** A row of a table: its Default cell, and the whole line. */
interface Row {
  readonly cell: string;
  readonly row: string;
}

/**
 * Every table of `doc` whose header row starts with the cells `header`, each as its rows keyed by
 * their first cell, the value being the cell of the `Default` column.
 */
function tablesOf(doc: string, header: readonly string[]): Map<string, Row>[] {
  const lines = read(doc).split('\n');
  const found: Map<string, Row>[] = [];
  lines.forEach((line, index) => {
    if (!line.startsWith('|') || (index > 0 && lines[index - 1]!.startsWith('|'))) return;
    const head = cells(line);
    if (!header.every((cell, i) => head[i] === cell)) return;
    const column = head.findIndex((cell) => cell.toLowerCase() === 'default');
    if (column === -1) throw new Error(`${doc}: the table ${header.join(' | ')} has no Default column`);
    const rows = new Map<string, Row>();
    for (const row of lines.slice(index + 2)) {
      if (!row.startsWith('|')) break;
      const rowCells = cells(row);
      rows.set(rowCells[0]!, { cell: rowCells[column]!, row });
    }
    found.push(rows);
  });
  return found;
}

/** The table of `doc` with the header `header` that has the row `row`. */
function table(doc: string, header: readonly string[], row: string): Map<string, Row> {
  const found = tablesOf(doc, header).find((rows) => rows.has(row));
  if (!found) throw new Error(`${doc}: no table "${header.join(' | ')}" with the row ${row}`);
  return found;
}

const DAY = 24 * 60 * 60 * 1000;
const UNITS: Record<string, number> = {
  MiB: 1024 * 1024,
  KiB: 1024,
  B: 1,
  days: DAY,
  day: DAY,
  h: 60 * 60 * 1000,
  s: 1000,
  ms: 1,
  '%': 0.01,
};

/** A literal written in a code span: `'none'`, `10000`, `0o600`, `true`, `x-webhook-token`. */
function literal(text: string): unknown {
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^\d[\d_]*$/.test(text)) return Number(text.replace(/_/g, ''));
  return text;
}

/**
 * The value a doc cell states. A cell that opens with a code span states that literal
 * (`` `'none'` ``, `` `10000` ``, `` `0o600` ``, `` `real-time` ``). Otherwise its first term:
 * `10 000`/`10,000` → the number, `1 MiB`/`3 days`/`1 h`/`80 %` → bytes, milliseconds or a share,
 * `on`/`off` → booleans, `—`/`none` (nothing given) → undefined.
 */
function docValue(cell: string): unknown {
  const code = /^`([^`]*)`/.exec(cell.trim());
  if (code) return literal(code[1]!);
  const text = cell.trim();
  if (text === '—' || text === '-' || text === '' || /^none\b/.test(text)) return undefined;
  if (/^(off|false)\b/.test(text)) return false;
  if (/^(on|true)\b/.test(text)) return true;
  const number = /^(\d[\d ,]*(?:\.\d+)?)\s*(MiB|KiB|B|days?|h|s|ms|%)?(?=$|[\s(;,])/.exec(text);
  if (number) {
    const value = Number(number[1]!.replace(/[ ,]/g, ''));
    return number[2] === undefined ? value : value * UNITS[number[2]]!;
  }
  throw new Error(`cannot read a default in ${JSON.stringify(cell)}`);
}

// ----- the code ------------------------------------------------------------------------------

/** Evaluates a default expression of `source`: a literal, a product, or a constant of the file. */
function evaluate(expression: string, source: string, file: string): unknown {
  const text = expression.trim();
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^[\d_.\s*]+$/.test(text)) {
    return text
      .split('*')
      .map((factor) => Number(factor.replace(/_/g, '').trim()))
      .reduce((product, factor) => product * factor, 1);
  }
  // a list of string literals, e.g. ['SENT', 'DELIVERED']
  if (/^\[\s*('[^']*'\s*,?\s*)*\]$/.test(text))
    return [...text.matchAll(/'([^']*)'/g)].map((match) => match[1]);
  const member = /^([A-Z][A-Z0-9_]*)\.(\w+)$/.exec(text);
  if (member) return evaluate(objectMember(source, member[1]!, member[2]!, file), source, file);
  if (/^[A-Z][A-Z0-9_]*$/.test(text)) {
    const constant = new RegExp(`const ${text}(?::[^=]+)?\\s*=\\s*([^;]+);`).exec(source);
    if (!constant) throw new Error(`${file}: no constant ${text}`);
    return evaluate(constant[1]!, source, file);
  }
  throw new Error(`${file}: cannot evaluate the default ${JSON.stringify(text)}`);
}

/** The expression of `key` in the object constant `name` of `source`. */
function objectMember(source: string, name: string, key: string, file: string): string {
  const object = new RegExp(`const ${name}\\b[^=]*=\\s*\\{([^}]*)\\}`).exec(source);
  const entry = object && new RegExp(`\\b${key}:\\s*([^,\\n]+)`).exec(object[1]!);
  if (!entry) throw new Error(`${file}: no ${name}.${key}`);
  return entry[1]!;
}

/**
 * The code's default for `name` in `file` (under src/): the constant `name` when it is one
 * (`DEFAULT_BODY_LIMIT`, `DEFAULT_RETENTION.closedChats`), else the right side of the first
 * `<name> ?? <default>` of the file.
 */
function codeDefault(file: string, name: string): unknown {
  const source = read(`src/${file}`);
  if (/^[A-Z][A-Z0-9_]*(\.\w+)?$/.test(name)) return evaluate(name, source, file);
  const resolved = new RegExp(`\\b${name.replace(/\./g, '\\??\\.')}\\s*\\?\\?\\s*([^,;)}\\n]+)`).exec(source);
  if (!resolved) throw new Error(`src/${file}: no "${name} ?? <default>"`);
  return evaluate(resolved[1]!, source, file);
}

/** Each option of a CLI command's `--help`, with the default commander prints for it. */
async function cliDefaults(command: string): Promise<Map<string, unknown>> {
  let help = '';
  const write = (text: string): void => {
    help += `${text}\n`;
  };
  const io = { out: write, err: write, isTty: false, status: () => {} };
  await main(['node', 'messaging-webhooks', command, '--help'], io);
  const options = new Map<string, unknown>();
  // An option's entry starts on a line indented by two spaces and a dash; a long description
  // continues on lines indented further.
  const entries = help.split(/\n(?= {2}-)/).slice(1);
  for (const entry of entries) {
    const flat = entry.replace(/\s+/g, ' ').trim();
    const long = /--[\w-]+/.exec(flat);
    if (!long) continue;
    // `(default: 16)`, or `(choices: "a", "b", default: "a")`
    const shown = [...flat.matchAll(/[(,] ?default: ("[^"]*"|[^)]*)\)/g)].at(-1)?.[1];
    options.set(long[0], shown === undefined || shown.startsWith('$') ? undefined : JSON.parse(shown));
  }
  return options;
}

// ----- the checks ----------------------------------------------------------------------------

/** A row's check: what the code says its default is. */
type Check = () => unknown;

interface Covered {
  readonly doc: string;
  readonly header: readonly string[];
  /** Row (its first cell, as written) → the code's default. */
  readonly checked: Readonly<Record<string, Check>>;
  /** Row → why its default is not compared (not a value, or the doc explains a behaviour). */
  readonly unchecked?: Readonly<Record<string, string>>;
  /** How a row reads (the whole line), where its Default cell's first term is not the whole default. */
  readonly read?: Readonly<Record<string, (cell: string) => unknown>>;
}

const emulatorHelp = cliDefaults('emulator');
const replayHelp = cliDefaults('replay');
const cli =
  (help: Promise<Map<string, unknown>>, flag: string): Check =>
  async () => {
    const options = await help;
    if (!options.has(flag)) throw new Error(`--help does not list ${flag}`);
    return options.get(flag);
  };
const code =
  (file: string, name: string): Check =>
  () =>
    codeDefault(file, name);
/** A number the help prints as a string (`'4010'`: commander keeps a default as given). */
const asNumber =
  (check: Check): Check =>
  async () =>
    Number(await check());
const notGiven = 'documented as nothing given: no default value to compare';

const COVERED: readonly Covered[] = [
  {
    doc: 'docs/receiver.md',
    header: ['Option', 'Default', 'Meaning'],
    checked: {
      '`tokenHeader`': code('util/token-header.ts', 'DEFAULT_TOKEN_HEADER'),
      '`tokenQueryParam`': code('pipeline/head.ts', 'options.tokenQueryParam'),
      '`bodyLimit`': code('pipeline/options.ts', 'DEFAULT_BODY_LIMIT'),
      '`bodyTimeoutMs`': code('pipeline/options.ts', 'DEFAULT_BODY_TIMEOUT_MS'),
      '`maxJsonDepth`, `maxJsonKeys`, `maxJsonItems`': () =>
        ['maxDepth', 'maxKeys', 'maxItems'].map((key) =>
          codeDefault('pipeline/json.ts', `DEFAULT_JSON_LIMITS.${key}`),
        ),
      '`concurrency`': code('dispatch/memory.ts', 'options.concurrency'),
      '`maxQueueSize`': code('dispatch/memory.ts', 'DEFAULT_MAX_QUEUE_SIZE'),
      '`healthQueueThreshold`': code('pipeline/options.ts', 'DEFAULT_HEALTH_QUEUE_SHARE'),
      '`retryAfterSeconds`': code('pipeline/options.ts', 'DEFAULT_RETRY_AFTER_SECONDS'),
      '`retry`': () => ({
        attempts: codeDefault('dispatch/backoff.ts', 'DEFAULT_RETRY_ATTEMPTS'),
        type: codeDefault('dispatch/backoff.ts', 'backoff?.type'),
        delay: codeDefault('dispatch/backoff.ts', 'backoff?.delay'),
        maxDelay: codeDefault('dispatch/backoff.ts', 'backoff?.maxDelay'),
      }),
      '`dedupe`': () => ({
        max: codeDefault('dedupe/memory.ts', 'DEFAULT_DEDUPE_MAX'),
        ttlMs: codeDefault('dedupe/memory.ts', 'DEFAULT_DEDUPE_TTL_MS'),
      }),
      '`statusTracking`': () => ({ max: codeDefault('delivery/tracker.ts', 'options.max') }),
      '`enqueueTimeoutMs`': code('pipeline/options.ts', 'DEFAULT_ENQUEUE_TIMEOUT_MS'),
    },
    read: {
      '`maxJsonDepth`, `maxJsonKeys`, `maxJsonItems`': (row) =>
        cells(row)[1]!
          .split(',')
          .map((part) => Number(part.replace(/\s/g, ''))),
      '`retry`': (row) => ({
        attempts: Number(/attempts: (\d+)/.exec(row)?.[1]),
        type: /type: '(\w+)'/.exec(row)?.[1],
        delay: Number(/delay: (\d+)/.exec(row)?.[1]),
        maxDelay: Number(/maxDelay: (\d+)/.exec(row)?.[1]),
      }),
      '`dedupe`': (row) => ({
        max: Number(/max: (\d+)/.exec(row)?.[1]),
        ttlMs: Number(/ttlMs: (\d+) days/.exec(row)?.[1]) * DAY,
      }),
      '`statusTracking`': (row) => ({ max: Number(/max: (\d+)/.exec(row)?.[1]) }),
      '`healthQueueThreshold`': (row) => Number(/(\d+) %/.exec(row)?.[1]) / 100,
    },
    unchecked: {
      '`onIncoming`, `onStatus`, `onSession`, `onEvent`, `onChatbot`': notGiven,
      '`onError(error, ctx)`': notGiven,
      '`onDeadLetter({ job, error, attempts })`': notGiven,
      '`onInvalid({ type, payload, issues, requestId, receivedAt })`': notGiven,
      '`token`': 'a behaviour (none: open, with a warning), tested in test/receiver',
      '`callbackTimeoutMs`': notGiven,
      '`chatbotPayloadVersion`': 'a behaviour (detected per event)',
      '`dispatcher`': 'a behaviour (the in-memory dispatcher)',
      '`capture`': notGiven,
      '`logger`': 'a behaviour (silent)',
      '`redactLogs`': 'a behaviour, tested by the redaction tests',
      '`onUnfinished`': notGiven,
      '`deadLetterSink`': notGiven,
    },
  },
  {
    doc: 'docs/emulator.md',
    header: ['Option', 'Default', ''],
    checked: {
      '`messagingPrefix`': code('emulator/emulator.ts', 'options.messagingPrefix'),
      '`chatPrefix`': code('emulator/emulator.ts', 'options.chatPrefix'),
      '`retention`': () => ({
        closedChats: codeDefault('emulator/state/store.ts', 'DEFAULT_RETENTION.closedChats'),
        messages: codeDefault('emulator/state/store.ts', 'DEFAULT_RETENTION.messages'),
        ratingWidgets: codeDefault('emulator/state/store.ts', 'DEFAULT_RETENTION.ratingWidgets'),
        media: codeDefault('emulator/state/store.ts', 'DEFAULT_MEDIA_RETENTION.media'),
        mediaBytes: codeDefault('emulator/state/store.ts', 'DEFAULT_MEDIA_RETENTION.mediaBytes'),
      }),
      '`agentMessages`': () => ({
        receipts: codeDefault('emulator/emulator.ts', 'DEFAULT_AGENT_MESSAGE_RECEIPTS'),
        maxMediaBytes: codeDefault('emulator/routes/agent-messages.ts', 'DEFAULT_MAX_MEDIA_BYTES'),
      }),
      '`retry`': () => ({ attempts: codeDefault('emulator/emulator.ts', 'options.retry?.attempts') }),
      '`timeoutMs`': code('emulator/emulator.ts', 'options.timeoutMs'),
      '`deliveryConcurrency`': code('emulator/emulator.ts', 'DEFAULT_DELIVERY_CONCURRENCY'),
      '`deliveryLogLimit`': code('emulator/emulator.ts', 'options.deliveryLogLimit'),
      '`idleTimeoutMs`': code('emulator/emulator.ts', 'DEFAULT_IDLE_TIMEOUT_MS'),
    },
    read: {
      '`retention`': (row) => ({
        closedChats: Number(/closedChats: (\d+)/.exec(row)?.[1]),
        messages: Number(/messages: (\d+)/.exec(row)?.[1]),
        ratingWidgets: Number(/ratingWidgets: (\d+)/.exec(row)?.[1]),
        media: Number(/media: (\d+)/.exec(row)?.[1]),
        mediaBytes: Number(/mediaBytes: (\d+)/.exec(row)?.[1]),
      }),
      '`agentMessages`': (row) => ({
        receipts: [.../receipts: \[([^\]]*)\]/.exec(row)![1]!.matchAll(/'(\w+)'/g)].map((match) => match[1]),
        maxMediaBytes: Number(/maxMediaBytes: (\d+)/.exec(row)?.[1]),
      }),
      '`retry`': (row) => ({ attempts: Number(/attempts: (\d+)/.exec(row)?.[1]) }),
    },
    unchecked: {
      '`seed`': "a behaviour: resolveSeed's undefined is the default seed, tested in test/emulator",
      '`state`': notGiven,
      '`clock`': 'a behaviour (a manual clock at the wall-clock time), tested in test/emulator',
      '`onDeliveryAttempt`': notGiven,
      '`deliveryHeaders`': 'an empty object',
      '`faults`': notGiven,
      '`routeGroups`': 'an empty list',
      '`checkResponses`': 'depends on NODE_ENV, tested in test/emulator',
      '`logger`': 'a behaviour (silent)',
      '`allowedHosts`': 'an empty list',
      '`pathOverrides`': 'none: every operation at its documented path or the emulator’s choice',
    },
  },
  {
    doc: 'docs/emulator.md',
    header: ['Kept', 'Default', 'Beyond it'],
    checked: {
      'closed chats': code('emulator/state/store.ts', 'DEFAULT_RETENTION.closedChats'),
      'outbound messages': code('emulator/state/store.ts', 'DEFAULT_RETENTION.messages'),
      'rating widgets': code('emulator/state/store.ts', 'DEFAULT_RETENTION.ratingWidgets'),
      'delivery log entries': code('emulator/emulator.ts', 'options.deliveryLogLimit'),
    },
  },
  {
    doc: 'docs/cli.md',
    header: ['Option', 'Default', ''],
    checked: {
      '`-p, --port <port>`': asNumber(cli(emulatorHelp, '--port')),
      '`--host <host>`': cli(emulatorHelp, '--host'),
      '`--retry-attempts <n>`': code('emulator/emulator.ts', 'options.retry?.attempts'),
      '`--delivery-concurrency <n>`': cli(emulatorHelp, '--delivery-concurrency'),
      '`-v, --verbose`': async () => (await cli(emulatorHelp, '--verbose')()) ?? false,
      '`--clock <real-time\\|manual>`': cli(emulatorHelp, '--clock'),
      '`--chatbot-include-outgoing`': async () =>
        (await cli(emulatorHelp, '--chatbot-include-outgoing')()) ?? false,
      '`--chatbot-stop-on-agent-assignment`': async () =>
        (await cli(emulatorHelp, '--chatbot-stop-on-agent-assignment')()) ?? false,
      '`--show-secrets`': async () => (await cli(emulatorHelp, '--show-secrets')()) ?? false,
      '`--forward-to <base-url>`': cli(emulatorHelp, '--forward-to'),
      '`--token <token>`': cli(emulatorHelp, '--token'),
      "`--header 'Name: value'`": cli(emulatorHelp, '--header'),
      '`--allowed-host <name>`': cli(emulatorHelp, '--allowed-host'),
    },
    unchecked: {
      '`--forward-incoming-to`, `--forward-status-to`, `--forward-session-to`, `--forward-event-to`, `--forward-chatbot-to <url>`':
        notGiven,
      '`--chatbot-payload-version <v1\\|v2>`':
        "the platform's default, not the CLI's (the configuration leaves it unset)",
      '`--state <file>`, `--save-state <file>`': notGiven,
    },
  },
  {
    doc: 'docs/cli.md',
    header: ['`createJsonlCapture` option', 'Default', ''],
    checked: {
      '`maxPendingBytes`': code('capture/jsonl.ts', 'DEFAULT_MAX_PENDING_BYTES'),
    },
    unchecked: {
      '`file`': 'required',
      '`redact`': 'a behaviour (the secret headers removed), tested in test/capture',
      '`onError`': notGiven,
    },
  },
  {
    doc: 'docs/cli.md',
    header: ['Environment variable', 'Config file key', 'Default'],
    checked: {
      '`MESSAGING_WEBHOOKS_QUEUE_NAME`': code('redis/names.ts', 'DEFAULT_QUEUE_NAME'),
      '`MESSAGING_WEBHOOKS_PARTITIONS`': code('redis/names.ts', 'DEFAULT_PARTITIONS'),
    },
    unchecked: {
      '`MESSAGING_WEBHOOKS_REDIS_URL`': notGiven,
      '`MESSAGING_WEBHOOKS_QUEUE_PREFIX`': "BullMQ's own default prefix (the library passes none)",
      '`MESSAGING_WEBHOOKS_HASH_TAGS`': 'a behaviour (on for a Cluster), tested in test/redis',
      '`MESSAGING_WEBHOOKS_CONFIG`': notGiven,
    },
  },
  {
    doc: 'docs/security.md',
    header: ['option', 'default', 'what'],
    checked: {
      '`fileMode`': code('util/files.ts', 'OWNER_FILE_MODE'),
      '`directoryMode`': code('util/files.ts', 'OWNER_DIRECTORY_MODE'),
    },
  },
];

/** Tables whose CLI `Option | Default` rows belong to `replay` (docs/cli.md has two such tables). */
const REPLAY_CLI: Readonly<Record<string, Check>> = {
  '`--token <token>`': cli(replayHelp, '--token'),
  '`--speed <factor>`': cli(replayHelp, '--speed'),
  '`--timeout <ms>`': asNumber(cli(replayHelp, '--timeout')),
  '`--concurrency <n>`': cli(replayHelp, '--concurrency'),
};

/** The library's `replay()` options (docs/cli.md, the table after "A failed item never rejects"). */
const REPLAY_LIBRARY: Readonly<Record<string, Check>> = {
  '`pacing`': code('testing/replay.ts', 'options.pacing'),
  '`basePath`': code('testing/replay.ts', 'options.basePath'),
  '`forwardHeaders`': code('testing/replay.ts', 'options.forwardHeaders'),
  '`timeoutMs`': code('testing/replay.ts', 'options.timeoutMs'),
  '`stopOn`': code('testing/replay.ts', 'options.stopOn'),
};

async function compare(
  doc: string,
  rows: Map<string, Row>,
  checked: Readonly<Record<string, Check>>,
  read: Readonly<Record<string, (cell: string) => unknown>> = {},
): Promise<string[]> {
  const wrong: string[] = [];
  for (const [row, check] of Object.entries(checked)) {
    const found = rows.get(row);
    if (found === undefined) {
      wrong.push(`${doc}: no row ${row} (renamed? update this test)`);
      continue;
    }
    const { cell } = found;
    const stated = read[row] ? read[row](found.row) : docValue(cell);
    const actual = await check();
    if (JSON.stringify(stated) !== JSON.stringify(actual)) {
      wrong.push(
        `${doc} ${row}: the doc says ${JSON.stringify(stated)} (${cell}), the code ${JSON.stringify(actual)}`,
      );
    }
  }
  return wrong;
}

describe('defaults stated in the docs', () => {
  for (const covered of COVERED) {
    const name = `${covered.doc}, table "${covered.header.join(' | ')}"`;
    it(`${name}: every default is the code's`, async () => {
      const rows = table(covered.doc, covered.header, Object.keys(covered.checked)[0]!);
      expect(await compare(covered.doc, rows, covered.checked, covered.read)).toEqual([]);
    });
    it(`${name}: every row is checked or says why not`, () => {
      const rows = table(covered.doc, covered.header, Object.keys(covered.checked)[0]!);
      const known = new Set([...Object.keys(covered.checked), ...Object.keys(covered.unchecked ?? {})]);
      expect([...rows.keys()].filter((row) => !known.has(row))).toEqual([]);
    });
  }

  it("docs/cli.md, the replay command's and replay()'s tables: every default is the code's", async () => {
    const command = table('docs/cli.md', ['Option', 'Default', ''], '`--speed <factor>`');
    const library = table('docs/cli.md', ['Option', 'Default', ''], '`pacing`');
    const wrong = [
      ...(await compare('docs/cli.md (replay command)', command, REPLAY_CLI)),
      ...(await compare('docs/cli.md (replay())', library, REPLAY_LIBRARY)),
    ];
    expect(wrong).toEqual([]);
  });

  it('docs/redis.md, "Options at a glance": every default in parentheses is the code\'s', () => {
    const glance = new Map(
      read('docs/redis.md')
        .split('### Options at a glance')[1]!
        .split('\n\n')[1]!
        .split('\n')
        .filter((line) => line.startsWith('| `create'))
        .map((line) => cells(line) as [string, string]),
    );
    const stated = (factory: string, option: string): unknown => {
      const cell = glance.get(`\`${factory}\``);
      const match = cell && new RegExp(`\`${option}\` \\(([^),;]+)`).exec(cell);
      if (!match) throw new Error(`docs/redis.md: ${factory} states no default for ${option}`);
      return docValue(match[1]!);
    };
    const rows: [string, string, unknown][] = [
      ['createRedisDedupeStore', 'ttlMs', codeDefault('dedupe/memory.ts', 'DEFAULT_DEDUPE_TTL_MS')],
      ['createRedisDedupeStore', 'leaseMs', codeDefault('redis/dedupe-store.ts', 'DEFAULT_DEDUPE_LEASE_MS')],
      ['createRedisDedupeStore', 'prefix', codeDefault('redis/dedupe-store.ts', 'DEFAULT_DEDUPE_PREFIX')],
      [
        'createRedisDedupeStore',
        'commandTimeoutMs',
        codeDefault('redis/connection.ts', 'DEFAULT_COMMAND_TIMEOUT_MS'),
      ],
      ['createBullMQDispatcher', 'queueName', codeDefault('redis/names.ts', 'DEFAULT_QUEUE_NAME')],
      ['createBullMQDispatcher', 'partitions', codeDefault('redis/names.ts', 'DEFAULT_PARTITIONS')],
      [
        'createBullMQDispatcher',
        'keepCompletedMs',
        codeDefault('redis/queues.ts', 'DEFAULT_KEEP_COMPLETED_MS'),
      ],
      ['createBullMQDispatcher', 'keepFailedMs', codeDefault('redis/dispatcher.ts', 'options.keepFailedMs')],
      [
        'createBullMQDispatcher',
        'commandTimeoutMs',
        codeDefault('redis/connection.ts', 'DEFAULT_COMMAND_TIMEOUT_MS'),
      ],
      ['createDeadLetterQueue', 'connectTimeoutMs', codeDefault('redis/dlq.ts', 'options.connectTimeoutMs')],
      [
        'createDeadLetterQueue',
        'keepCompletedMs',
        codeDefault('redis/queues.ts', 'DEFAULT_KEEP_COMPLETED_MS'),
      ],
    ];
    const wrong = rows
      .map(([factory, option, actual]) => ({ factory, option, said: stated(factory, option), actual }))
      .filter(({ said, actual }) => JSON.stringify(said) !== JSON.stringify(actual));
    expect(wrong).toEqual([]);
  });

  it("docs/emulator.md, the trigger kinds: every `--flag` (default `x`) is the one the kind's --help shows", async () => {
    const kinds = read('docs/emulator.md')
      .split('\n')
      .filter((line) => /^\| `[a-z-]+` \| `POST /.test(line))
      .map(cells);
    expect(kinds.length).toBeGreaterThanOrEqual(5);
    const wrong: string[] = [];
    let compared = 0;
    for (const [kind, , fields] of kinds) {
      let help = '';
      const write = (text: string): void => {
        help += `${text}\n`;
      };
      await main(['node', 'messaging-webhooks', 'trigger', kind!.replace(/`/g, ''), '--help'], {
        out: write,
        err: write,
        isTty: false,
        status: () => {},
      });
      const flat = help.replace(/\s+/g, ' ');
      for (const [, flag, value] of fields!.matchAll(/`(--[\w-]+)` \(default `([^`]+)`\)/g)) {
        compared += 1;
        const shown = new RegExp(`${flag} <value> [^(]*(?:\\([^)]*\\)[^(]*)*?\\(default ([^)]+)\\)`).exec(
          flat,
        );
        // `connecting when no --status`: the value, then when it applies
        const said = shown?.[1];
        if (said !== value && !said?.startsWith(`${value} when `))
          wrong.push(`${kind} ${flag}: the doc says ${value}, --help ${said}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(5);
  });

  // The parsers above must be able to fail: a wrong stated default is reported.
  it('reports a default the doc states wrongly', async () => {
    const rows = new Map([['`bodyTimeoutMs`', { cell: '9 000', row: '| `bodyTimeoutMs` | 9 000 | |' }]]);
    const wrong = await compare('a doc', rows, {
      '`bodyTimeoutMs`': code('pipeline/options.ts', 'DEFAULT_BODY_TIMEOUT_MS'),
    });
    expect(wrong).toEqual(['a doc `bodyTimeoutMs`: the doc says 9000 (9 000), the code 10000']);
  });

  it('reads the units the docs write', () => {
    expect(
      ['1 MiB', '3 days', '1 h', '1 s', '80 %', '10,000', '`0o600`', "`'none'`", 'off', '—', '`none`'].map(
        docValue,
      ),
    ).toEqual([1_048_576, 3 * DAY, 3_600_000, 1000, 0.8, 10_000, 0o600, 'none', false, undefined, 'none']);
  });
});
