/** The `messaging-webhooks` program: its commands, options and help. */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import type { ChatbotPayloadVersion } from '../schemas/index.js';
import type { EmulatorCommandOptions } from './emulator.js';
import { CliError, messageOf, processIo, type CliIo } from './output.js';
import type { ReplayCommandOptions } from './replay.js';

function packageVersion(): string {
  try {
    // dist/cli/index.js and src/cli/index.ts both sit two levels below the package root.
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Runs an action; any error becomes one `error:` line on stderr and exit code 1. */
function guarded<A extends unknown[]>(
  io: CliIo,
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      io.err(`error: ${messageOf(error)}`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
    }
  };
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
export function createProgram(io: CliIo = processIo()): Command {
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
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', '0')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--retry-attempts <n>', 'delivery attempts per event (1 = no retries)')
    .option('-v, --verbose', 'log deliveries to stderr')
    .addHelpText(
      'after',
      '\nRuns until Ctrl+C (SIGINT) or SIGTERM. The seeded supervisor key is emu-supervisor-key.\n' +
        'Example:\n  messaging-webhooks emulator --port 4010',
    )
    .action(
      guarded(io, async (options: EmulatorCommandOptions) => {
        // Commands load their modules when run, so `--help` does not load the emulator or Express.
        const { startEmulatorCommand } = await import('./emulator.js');
        const emulator = await startEmulatorCommand(options, io);
        await new Promise<void>((resolve) => {
          const stop = (signal: NodeJS.Signals): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            io.out(`${signal}: stopping the emulator`);
            resolve();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await emulator.close();
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
    .addHelpText(
      'after',
      '\nExits 1 when any payload was not answered 2xx, a line could not be read, or the URL is unreachable.\n' +
        'Example:\n  messaging-webhooks replay .captures/webhooks.jsonl --to http://localhost:3000/webhooks --speed original',
    )
    .action(
      guarded(io, async (file: string, options: ReplayCommandOptions) => {
        const { replayCommand } = await import('./replay.js');
        const report = await replayCommand(file, options, io);
        if (report.failed > 0) process.exitCode = 1;
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
      guarded(io, async (file: string, options: { chatbotPayloadVersion?: string; verbose?: boolean }) => {
        const { validateCommand } = await import('./validate.js');
        const summary = await validateCommand(
          file,
          { chatbotPayloadVersion: parseVersion(options.chatbotPayloadVersion), verbose: options.verbose },
          io,
        );
        if (summary.invalid > 0 || summary.unreadable > 0) process.exitCode = 1;
      }),
    );

  program
    .command('demo')
    .description('run the emulator and an example receiver together and play a scripted scenario')
    .option(
      '--capture <file>',
      "also capture the receiver's requests to a JSONL file (for replay and validate)",
    )
    .addHelpText(
      'after',
      '\nShows customer messages of several content types, v2 chatbot events, an agent assignment that\n' +
        'stops chatbot events, a status progression with a late receipt, a session disconnect and a\n' +
        'marketing opt-out, as a timeline of the receiver callbacks. Exits 0 when every check passes.',
    )
    .action(
      guarded(io, async (options: { capture?: string }) => {
        const { runDemo } = await import('./demo.js');
        const result = await runDemo({ write: io.out, capture: options.capture });
        if (!result.ok) throw new CliError('the demo did not see what it expected (see the ✗ lines above)');
      }),
    );

  return program;
}

/** Parses argv and runs the command; resolves with the exit code. */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    // commander already printed its message (unknown option, missing argument) or the help.
    if (error instanceof CommanderError) return error.exitCode;
    io.err(`error: ${messageOf(error)}`);
    return 1;
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
