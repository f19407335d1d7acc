/** The `messaging-webhooks` program: its commands, options and help. */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import type { ChatbotPayloadVersion } from '../schemas/index.js';
import {
  CLI_CONCURRENCY,
  collect,
  DEFAULT_EMULATOR_PORT,
  DEFAULT_EMULATOR_URL,
  parseBaseUrl,
  parseHeader,
  parseToken,
  parseUrl,
} from './defaults.js';
import { REDIS_NAME_ENV } from '../redis/names.js';
import { parseQueueName, parseRedisUrl, parseWhole, type DlqCommandOptions } from './dlq.js';
import type { EmulatorCommandOptions } from './emulator.js';
import type { LogsCommandOptions, ResendCommandOptions } from './logs.js';
import type { ListenCommandOptions, RelayCommandOptions } from './relay.js';
import type { OpenApiCommandOptions } from './openapi.js';
import { CliError, messageOf, printableIo, processIo, type CliIo } from './output.js';
import type { ReplayCommandOptions } from './replay.js';
import {
  kindFields,
  parseFieldValue,
  TRIGGER_KINDS,
  triggerCommand,
  type TriggerKindName,
  type TriggerOptions,
} from './trigger.js';

function packageVersion(): string {
  try {
    // dist/cli/index.js and src/cli/index.ts both sit two levels below the package root.
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The exit code a run of the program ends with: set by a command, returned by {@link main} (never
 * `process.exitCode`, so a run in a test's process leaves that process's own exit code alone).
 */
interface ExitStatus {
  code: number;
}

/** Runs an action; any error becomes one `error:` line on stderr and exit code 1. */
function reportingFailures<A extends unknown[]>(
  io: CliIo,
  exit: ExitStatus,
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      io.err(`error: ${messageOf(error)}`);
      exit.code = error instanceof CliError ? error.exitCode : 1;
    }
  };
}

/** Resolves with the signal at the first Ctrl+C (SIGINT) or SIGTERM. */
function untilStopped(_io: CliIo): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The payload versions (spelled out: importing the schemas would load zod for `--help`). */
const CHATBOT_PAYLOAD_VERSIONS = ['v1', 'v2'] as const satisfies readonly ChatbotPayloadVersion[];

function parseVersion(value: string | undefined): ChatbotPayloadVersion | undefined {
  if (value === undefined) return undefined;
  if (!(CHATBOT_PAYLOAD_VERSIONS as readonly string[]).includes(value)) {
    throw new CliError(`--chatbot-payload-version: expected v1 or v2, got ${JSON.stringify(value)}`);
  }
  return value as ChatbotPayloadVersion;
}

/** Builds the program (exported for tests that run it in-process). */
function createProgram(io: CliIo, exit: ExitStatus): Command {
  const program = new Command();
  // Before the subcommands are added: they copy the setting when created.
  program.exitOverride();
  program
    .name('messaging-webhooks')
    .description(
      'Receive the messaging platform webhooks, and test against an embedded emulator of the platform.',
    )
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    });

  program
    .command('emulator')
    .description('start the standalone platform emulator; prints its URL and the seeded API key')
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', String(DEFAULT_EMULATOR_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--retry-attempts <n>', 'delivery attempts per event (1 = no retries)')
    .addOption(
      new Option(
        '--delivery-concurrency <n>',
        'deliveries in flight at once; one conversation to one URL always goes in order (1 = one at a time)',
      )
        .argParser(parseWhole(1, 1024))
        .default(CLI_CONCURRENCY),
    )
    .option('--state <file>', 'start from a snapshot (written by --save-state or GET /_emulator/snapshot)')
    .option('--save-state <file>', 'write a snapshot of the state there on exit (Ctrl+C, SIGTERM)')
    .option('-v, --verbose', 'log deliveries to stderr')
    .addOption(
      new Option(
        '--allowed-host <name>',
        'also answer requests whose Host header names this (repeatable; e.g. a container name). ' +
          'Only localhost, 127.0.0.1, [::1] and the --host address are served otherwise (DNS rebinding)',
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--clock <mode>',
        'real-time: timestamps follow the wall clock (two events seconds apart differ); manual: the clock moves only with POST /_emulator/clock/advance',
      )
        .choices(['real-time', 'manual'])
        .default('real-time'),
    )
    .addOption(
      new Option(
        '--forward-to <base-url>',
        "configure every client's default webhooks to <base-url>/incoming, /status, /session, /events and /chatbot (the receiver's paths)",
      ).argParser(parseBaseUrl),
    )
    .addOption(
      new Option(
        '--token <token>',
        "the receiver's token, added to the --forward-to URLs as ?token= (the receiver's default query parameter)",
      ).argParser(parseToken),
    )
    .addOption(
      new Option(
        '--header <header>',
        "a header sent with every delivery, 'Name: value' (repeatable), e.g. 'x-webhook-token: s3cret'",
      ).argParser(parseHeader),
    )
    .addOption(
      new Option(
        '--forward-incoming-to <url>',
        'incoming messages to this URL instead (or without --forward-to)',
      ).argParser(parseUrl),
    )
    .addOption(new Option('--forward-status-to <url>', 'status updates to this URL').argParser(parseUrl))
    .addOption(
      new Option('--forward-session-to <url>', 'session status changes to this URL').argParser(parseUrl),
    )
    .addOption(new Option('--forward-event-to <url>', 'partner events to this URL').argParser(parseUrl))
    .addOption(new Option('--forward-chatbot-to <url>', 'chatbot events to this URL').argParser(parseUrl))
    .addOption(
      new Option(
        '--chatbot-payload-version <version>',
        'chatbotPayloadVersion of the configuration --forward-to creates (the platform default is v1)',
      ).choices(CHATBOT_PAYLOAD_VERSIONS),
    )
    .option(
      '--chatbot-include-outgoing',
      "chatbotIncludeOutgoing: also send the bot's and agents' own messages (OUTGOING chatbot events)",
    )
    .option(
      '--chatbot-stop-on-agent-assignment',
      'chatbotStopOnAgentAssignment: no chatbot events once an agent is assigned',
    )
    .option('--show-secrets', "print the receiver's token and the API keys in full (masked by default)")
    .addHelpText(
      'after',
      '\nRuns until Ctrl+C (SIGINT) or SIGTERM. The seeded supervisor key is emu-supervisor-key.\n' +
        'Examples:\n  messaging-webhooks emulator --forward-to http://localhost:3000/webhooks --token s3cret\n' +
        '  messaging-webhooks emulator --forward-to http://localhost:3000/webhooks --chatbot-payload-version v2 --chatbot-include-outgoing\n' +
        '  messaging-webhooks emulator --forward-chatbot-to http://localhost:3001/bot\n' +
        '  messaging-webhooks emulator --state fixtures/state.json --save-state fixtures/state.json',
    )
    .action(
      reportingFailures(io, exit, async (options: EmulatorCommandOptions) => {
        // Commands load their modules when run, so `--help` does not load the emulator or Express.
        const { startEmulatorCommand, stopEmulatorCommand } = await import('./emulator.js');
        const emulator = await startEmulatorCommand(options, io);
        const signal = await untilStopped(io);
        io.out(`${signal}: stopping the emulator`);
        await stopEmulatorCommand(emulator, options, io);
        io.out('Emulator stopped.');
      }),
    );

  program
    .command('replay')
    .description('send the payloads of a capture file to a receiver, in order')
    .argument('<file>', 'capture file (JSON lines written by createJsonlCapture)')
    .requiredOption('--to <url>', "the receiver's base URL, e.g. http://localhost:3000/webhooks")
    .option('--token <token>', 'token sent in the x-webhook-token header')
    .option(
      '--speed <factor>',
      'pacing: none (back to back), original (captured gaps) or a factor like 2',
      'none',
    )
    .option('--timeout <ms>', 'per-request timeout in milliseconds', '10000')
    .addOption(
      new Option(
        '--concurrency <n>',
        "requests in flight at once; one conversation's payloads always go in file order (1 = the whole file in order)",
      )
        .argParser(parseWhole(1, 1024))
        .default(CLI_CONCURRENCY),
    )
    .addHelpText(
      'after',
      '\nExits 1 when any payload was not answered 2xx, a line could not be read, or the URL is unreachable.\n' +
        'Example:\n  messaging-webhooks replay .captures/webhooks.jsonl --to http://localhost:3000/webhooks --speed original',
    )
    .action(
      reportingFailures(io, exit, async (file: string, options: ReplayCommandOptions) => {
        const { replayCommand } = await import('./replay.js');
        const report = await replayCommand(file, options, io);
        if (report.failed > 0) exit.code = 1;
      }),
    );

  program
    .command('validate')
    .description('check every payload of a capture file against the schemas and say why failures fail')
    .argument('<file>', 'capture file (JSON lines)')
    .option('--chatbot-payload-version <version>', 'validate chatbot events as v1 or v2 (default: detected)')
    .option('-v, --verbose', 'also list the payloads that pass')
    .addHelpText(
      'after',
      '\nExits 1 when any payload fails or any line cannot be read.\n' +
        'Example:\n  messaging-webhooks validate .captures/webhooks.jsonl',
    )
    .action(
      reportingFailures(
        io,
        exit,
        async (file: string, options: { chatbotPayloadVersion?: string; verbose?: boolean }) => {
          const { validateCommand } = await import('./validate.js');
          const summary = await validateCommand(
            file,
            { chatbotPayloadVersion: parseVersion(options.chatbotPayloadVersion), verbose: options.verbose },
            io,
          );
          if (summary.invalid > 0 || summary.unreadable > 0) exit.code = 1;
        },
      ),
    );

  program
    .command('demo')
    .description('run the emulator and an example receiver together and play a scripted scenario')
    .option(
      '--capture <file>',
      "also capture the receiver's requests to a JSONL file (for replay and validate)",
    )
    .option(
      '--keep-open',
      'keep the emulator, its inspector and the receiver running after the scenario, until Ctrl+C',
    )
    .addHelpText(
      'after',
      '\nShows customer messages of several content types, v2 chatbot events, an agent assignment that\n' +
        'stops chatbot events, a status progression with a late receipt, a session disconnect and a\n' +
        'marketing opt-out, as a timeline of the receiver callbacks. Exits 0 when every check passes.',
    )
    .action(
      reportingFailures(io, exit, async (options: { capture?: string; keepOpen?: boolean }) => {
        const { runDemo } = await import('./demo.js');
        const result = await runDemo({
          write: io.out,
          capture: options.capture,
          ...(options.keepOpen === true ? { keepOpen: () => untilStopped(io).then(() => undefined) } : {}),
        });
        if (!result.ok) throw new CliError('the demo did not see what it expected (see the ✗ lines above)');
      }),
    );

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the platform API and its webhooks (JSON)')
    .option('--yaml', 'print YAML instead of JSON')
    .addHelpText(
      'after',
      '\nThe document of the package export messaging-webhooks/openapi.json.\n' +
        'Example:\n  messaging-webhooks openapi --yaml > platform.openapi.yaml',
    )
    .action(
      reportingFailures(io, exit, async (options: OpenApiCommandOptions) => {
        const { openApiCommand } = await import('./openapi.js');
        await openApiCommand(options, io);
      }),
    );

  addDlqCommands(program, io, exit);
  addTriggerCommands(program, io, exit);
  addLogCommands(program, io, exit);
  addRelayCommands(program, io, exit);

  return program;
}

/** The options every `dlq` subcommand takes: where Redis is and the queue topology. */
function withTopology(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--redis <url>',
        `Redis URL, e.g. redis://127.0.0.1:6379 (default: $${REDIS_NAME_ENV.url})`,
      ).argParser(parseRedisUrl),
    )
    .addOption(
      new Option(
        '--queue-name <name>',
        `the dispatcher's and worker's queueName (default: $${REDIS_NAME_ENV.queueName}, else webhooks)`,
      ).argParser(parseQueueName),
    )
    .addOption(
      new Option(
        '--partitions <n>',
        `the dispatcher's and worker's partitions (default: $${REDIS_NAME_ENV.partitions}, else 16)`,
      ).argParser(parseWhole(1, 1024)),
    )
    .option('--prefix <prefix>', `BullMQ key prefix (default: $${REDIS_NAME_ENV.prefix}, else bull)`)
    .option(
      '--config <file>',
      `a JSON file { "redis": { "url", "queueName", "prefix", "partitions", "hashTags" } } (default: $${REDIS_NAME_ENV.config})`,
    )
    .option('--cluster', '--redis is a node of a Redis Cluster (queue names get hash tags)')
    .option('--hash-tags', "queue names with hash tags without --cluster, as the dispatcher's hashTags: true")
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'));
}

/** `dlq list|show|redrive|purge`: the dead letters of the BullMQ worker (`<queueName>-dead`). */
function addDlqCommands(program: Command, io: CliIo, exit: ExitStatus): void {
  const dlq = program
    .command('dlq')
    .description('list, show, redrive or purge the dead letters of the Redis (BullMQ) worker')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  messaging-webhooks dlq list --redis redis://127.0.0.1:6379\n' +
        `  ${REDIS_NAME_ENV.url}=redis://127.0.0.1:6379 ${REDIS_NAME_ENV.queueName}=orders messaging-webhooks dlq list\n` +
        '  messaging-webhooks dlq redrive --all --dry-run --redis redis://127.0.0.1:6379\n' +
        '  messaging-webhooks dlq purge --all --yes --redis redis://127.0.0.1:6379',
    );
  withTopology(dlq.command('list').description('one line per dead letter, oldest first'))
    .addOption(new Option('--limit <n>', 'show at most n').argParser(parseWhole(1, 1_000_000)))
    .action(
      reportingFailures(io, exit, async (options: DlqCommandOptions & { limit?: number }) => {
        const { listCommand } = await import('./dlq.js');
        await listCommand(options, io);
      }),
    );
  withTopology(dlq.command('show').description('one dead letter: its payload, error and stack'))
    .argument('<id>', 'dead-letter id (from dlq list)')
    .action(
      reportingFailures(io, exit, async (id: string, options: DlqCommandOptions) => {
        const { showCommand } = await import('./dlq.js');
        await showCommand(id, options, io);
      }),
    );
  withTopology(
    dlq
      .command('redrive')
      .description('put dead letters back on their partition queues, in received order, to run again'),
  )
    .argument('[ids...]', 'dead-letter ids (from dlq list)')
    .option('--all', 'every dead letter')
    .option('--dry-run', 'say what would be redriven; change nothing')
    .addHelpText('after', '\nExits 1 when a given id is not in the dead-letter queue.')
    .action(
      reportingFailures(
        io,
        exit,
        async (ids: string[], options: DlqCommandOptions & { all?: boolean; dryRun?: boolean }) => {
          const { redriveCommand } = await import('./dlq.js');
          if (!(await redriveCommand(ids, options, io))) exit.code = 1;
        },
      ),
    );
  withTopology(dlq.command('purge').description('delete dead letters for good'))
    .argument('[ids...]', 'dead-letter ids (from dlq list)')
    .option('--all', 'every dead letter')
    .option('--yes', 'confirm the deletion (required)')
    .action(
      reportingFailures(
        io,
        exit,
        async (ids: string[], options: DlqCommandOptions & { all?: boolean; yes?: boolean }) => {
          const { purgeCommand } = await import('./dlq.js');
          await purgeCommand(ids, options, io);
        },
      ),
    );
}

/** `trigger <kind>`: one subcommand per kind, its options the fields of the kind's control routes. */
function addTriggerCommands(program: Command, io: CliIo, exit: ExitStatus): void {
  const trigger = program
    .command('trigger')
    .description(
      'send an event from a running emulator (its /_emulator control routes) and show the deliveries',
    )
    .addHelpText(
      'after',
      '\nThe emulator validates every field as its HTTP triggers do; a refusal is printed and exits 1.\n' +
        'Exits 1 also when a delivery failed. Examples:\n' +
        '  messaging-webhooks trigger customer-message --from +27831234567 --text Hi\n' +
        `  messaging-webhooks trigger session-change --emulator http://127.0.0.1:${DEFAULT_EMULATOR_PORT} --status-type connecting`,
    );
  for (const [name, kind] of Object.entries(TRIGGER_KINDS) as [
    TriggerKindName,
    (typeof TRIGGER_KINDS)[TriggerKindName],
  ][]) {
    const command = trigger
      .command(name)
      .description(kind.description)
      .addOption(
        new Option('--emulator <url>', 'the running emulator')
          .argParser(parseBaseUrl)
          .default(DEFAULT_EMULATOR_URL),
      )
      .option('--no-wait', "return once the event is emitted, without waiting for the receiver's answers")
      .option(
        '--payload <file>',
        "the event's fields as a JSON object, as its /_emulator control route takes them (- reads standard input); flags win over the file",
      )
      .option('--show-secrets', 'print the delivery URLs with their tokens (masked by default)')
      .addHelpText('after', `\nExample:\n${kind.help}`);
    for (const field of kindFields(name)) {
      const shown = field.default === undefined ? '' : ` (default ${String(field.default)})`;
      const option =
        field.type === 'boolean'
          ? new Option(`--${field.flag}`, `${field.description}${shown}`)
          : new Option(`--${field.flag} <value>`, `${field.description}${shown}`).argParser((value: string) =>
              parseFieldValue(field.type, value),
            );
      command.addOption(option);
    }
    command.action(
      reportingFailures(io, exit, async (options: TriggerOptions) => {
        if (!(await triggerCommand(name, options, io))) exit.code = 1;
      }),
    );
  }
}

/** The webhook types and delivery states (spelled out: importing them would load zod for `--help`). */
const WEBHOOK_TYPE_NAMES = ['incoming', 'status', 'session', 'event', 'chatbot'] as const;
const DELIVERY_STATE_NAMES = ['queued', 'held', 'delivering', 'delivered', 'failed'] as const;

/** `logs` and `resend`: the emulator's delivery log from a terminal. */
function addLogCommands(program: Command, io: CliIo, exit: ExitStatus): void {
  const emulatorOption = (): Option =>
    new Option('--emulator <url>', 'the running emulator')
      .argParser(parseBaseUrl)
      .default(DEFAULT_EMULATOR_URL);
  program
    .command('logs')
    .description("print the emulator's delivery log; --follow keeps printing deliveries as they finish")
    .addOption(emulatorOption())
    .option('-f, --follow', 'keep printing each delivery once it has its answer, until Ctrl+C')
    .addOption(new Option('--type <type>', 'only this webhook type').choices(WEBHOOK_TYPE_NAMES))
    .addOption(new Option('--state <state>', 'only deliveries in this state').choices(DELIVERY_STATE_NAMES))
    .option('--number <msisdn>', 'only events of this number of yours')
    .addOption(
      new Option('--status <code>', 'only deliveries the receiver answered with this HTTP status').argParser(
        parseWhole(100, 599),
      ),
    )
    .addOption(
      new Option('--limit <n>', 'past deliveries printed first').argParser(parseWhole(0, 500)).default(20),
    )
    .option(
      '--json',
      'one JSON object per delivery and line (the log entry, as /_emulator/deliveries has it)',
    )
    .option('--show-secrets', 'URLs with their tokens (masked by default)')
    .addHelpText(
      'after',
      '\nExamples:\n  messaging-webhooks logs --follow\n  messaging-webhooks logs --follow --type chatbot --json | jq .payload.messageText\n' +
        '  messaging-webhooks logs --state failed --limit 100',
    )
    .action(
      reportingFailures(io, exit, async (options: LogsCommandOptions) => {
        const { logsCommand } = await import('./logs.js');
        const abort = new AbortController();
        if (options.follow === true) void untilStopped(io).then(() => abort.abort());
        await logsCommand(options, io, abort.signal);
      }),
    );
  program
    .command('resend')
    .description('send a logged delivery again to its URL (a new log entry), and print the answer')
    .argument(
      '<delivery>',
      'the delivery: its sequence number (12 or #12, as logs and the inspector show it) or id',
    )
    .addOption(emulatorOption())
    .option('--no-wait', "return once the delivery is queued, without waiting for the receiver's answer")
    .option('--show-secrets', 'the URL with its token (masked by default)')
    .addHelpText(
      'after',
      '\nExits 1 when the resent delivery failed.\nExample:\n  messaging-webhooks resend 12',
    )
    .action(
      reportingFailures(io, exit, async (delivery: string, options: ResendCommandOptions) => {
        const { resendCommand } = await import('./logs.js');
        if (!(await resendCommand(delivery, options, io))) exit.code = 1;
      }),
    );
}

/** The relay's secret: long enough for a public endpoint. */
function parseSecret(value: string): string {
  if (value.length < 16 || /\s/.test(value)) {
    throw new InvalidArgumentError(
      'expected at least 16 characters without spaces (e.g. openssl rand -hex 24)',
    );
  }
  return value;
}

/** `relay` and `listen`: real platform traffic to a laptop. */
function addRelayCommands(program: Command, io: CliIo, exit: ExitStatus): void {
  program
    .command('relay')
    .description(
      "receive the platform's webhooks where it reaches them, and stream them to `listen` on your machine",
    )
    .addOption(
      new Option('-p, --port <port>', 'port to listen on').argParser(parseWhole(0, 65_535)).default(8080),
    )
    .option('--host <host>', 'interface to listen on', '0.0.0.0')
    .addOption(
      new Option('--secret <secret>', 'the secret `listen` authenticates with (default: $RELAY_SECRET)')
        .env('RELAY_SECRET')
        .argParser(parseSecret)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--token <token>',
        "the token the platform's URLs carry (?token=...) (default: $WEBHOOK_TOKEN)",
      )
        .env('WEBHOOK_TOKEN')
        .argParser(parseToken),
    )
    .option('--base-path <path>', 'path prefix of the webhook endpoints, e.g. /webhooks')
    .addOption(
      new Option(
        '--max-buffered <n>',
        'events kept while no listener acknowledged them (oldest dropped past it)',
      )
        .argParser(parseWhole(1, 1_000_000))
        .default(10_000),
    )
    .addHelpText(
      'after',
      "\nValidates, deduplicates and answers the platform at once (the package's receiver), then streams each event\n" +
        'to the listener over Server-Sent Events. Runs until Ctrl+C. Example:\n' +
        '  RELAY_SECRET=$(openssl rand -hex 24) WEBHOOK_TOKEN=s3cret messaging-webhooks relay --port 8080',
    )
    .action(
      reportingFailures(io, exit, async (options: RelayCommandOptions) => {
        const { relayCommand } = await import('./relay.js');
        const stop = await relayCommand(options, io);
        const signal = await untilStopped(io);
        io.out(`${signal}: stopping the relay`);
        await stop();
      }),
    );
  program
    .command('listen')
    .description('connect to a relay and forward each webhook to your local app, printing its answers')
    .addOption(
      new Option('--relay <url>', "the relay's public URL").argParser(parseBaseUrl).makeOptionMandatory(),
    )
    .addOption(
      new Option('--secret <secret>', "the relay's secret (default: $RELAY_SECRET)")
        .env('RELAY_SECRET')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--forward-to <base-url>',
        "your app's webhook base URL: each event goes to <base-url>/<its type's path>",
      )
        .argParser(parseBaseUrl)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--token <token>', "your app's token, sent in the x-webhook-token header").argParser(
        parseToken,
      ),
    )
    .option(
      '--capture <file>',
      'also append every event to this JSONL capture file (replay it with `replay`)',
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        "conversations forwarded at once; one conversation's events always in order",
      )
        .argParser(parseWhole(1, 1024))
        .default(CLI_CONCURRENCY),
    )
    .option('--json', 'one JSON object per answer and line')
    .addHelpText(
      'after',
      '\nEvents your app has not answered stay on the relay and come again when the listener reconnects.\nExample:\n' +
        '  messaging-webhooks listen --relay https://relay.example.com --secret $RELAY_SECRET --forward-to http://localhost:3000/webhooks --capture .captures/relay.jsonl',
    )
    .action(
      reportingFailures(io, exit, async (options: ListenCommandOptions) => {
        const { listenCommand } = await import('./relay.js');
        await listenCommand(options, io, untilStopped(io));
      }),
    );
}

/** Parses argv and runs the command; resolves with the exit code. */
export async function main(
  argv: readonly string[] = process.argv,
  terminal: CliIo = processIo(),
): Promise<number> {
  // Every line any command prints leaves through the one escaping writer, whatever `terminal` is.
  const io = printableIo(terminal);
  const exit: ExitStatus = { code: 0 };
  const program = createProgram(io, exit);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    // commander already printed its message (unknown option, missing argument) or the help.
    if (error instanceof CommanderError) return error.exitCode;
    io.err(`error: ${messageOf(error)}`);
    return 1;
  }
  return exit.code;
}
