/**
 * CLI output: the one way out to the terminal. The library never writes to the console; the CLI
 * does, and only here. Text is escaped in one place per entry: `main` (program.ts) hands every
 * command writers passed through {@link printableIo}, so every line a command prints (stdout and
 * stderr, commander's own messages, `error:` lines, the emulator's `--verbose` log) goes through
 * {@link printable} before it leaves, and the bin (index.ts) does the same for the lines it prints
 * itself. No text a sender, a receiver, a state file or a Redis record wrote can act on the
 * terminal. Commands write to the writers they are given and escape nothing themselves. The lint
 * forbids `process.stdout.write`, `process.stderr.write` and `console.*` elsewhere in src/cli.
 */

/** Writes lines somewhere (stdout by default). */
export type WriteLine = (line: string) => void;

/** Where a command writes: normal output, and errors/diagnostics. */
export interface CliIo {
  readonly out: WriteLine;
  readonly err: WriteLine;
  /** True when stdout is a terminal (progress bars, colours). */
  readonly isTty: boolean;
  /** Rewrites the current terminal line (progress bars); only used when `isTty`. */
  readonly status: (text: string) => void;
}

/** Erases the terminal line before a status line is drawn over it (the CLI's own sequence). */
const REDRAW = '\r\u001b[2K';

/**
 * The process's stdout and stderr, as they are: hand them to `main`, or wrap them in
 * {@link printableIo}, which escapes every line. A status line is drawn over the current line
 * with the CLI's own erase sequence (after `printableIo` escaped the text).
 */
export function processIo(): CliIo {
  return {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    isTty: process.stdout.isTTY === true,
    status: (text) => void process.stdout.write(`${REDRAW}${text}`),
  };
}

/**
 * An error the CLI reports as one clear line (`error: <message>`) and a non-zero exit, never a
 * stack trace: bad arguments, a missing file, an unreachable URL.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of any thrown value, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Characters a terminal may act on rather than print: C0 controls (ESC starts ANSI/OSC sequences:
 * a title change, a screen clear, a hyperlink; CR overwrites the line), DEL, C1 controls (U+009B is
 * a one-character CSI, U+009D an OSC), line and paragraph separators, and the bidirectional
 * overrides and isolates that reorder what is shown (the "trojan source" characters).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same, with tab and line feed
const UNPRINTABLE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text a sender or a receiver wrote (a payload, an error message, a target's answer), made safe for
 * a terminal: every control character is shown as its `\uXXXX` escape, so an escape sequence is
 * printed as text and never acted on (and JSON stays valid JSON). Tab and line feed are kept
 * unless `oneLine`. Every line the CLI prints passes through this ({@link printableIo}).
 */
export function printable(text: string, options: { readonly oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine === true ? UNPRINTABLE_ONE_LINE : UNPRINTABLE, escaped);
}

/**
 * The same writers, with every line and status line passed through {@link printable}: what
 * `main` hands to every command, whatever writers it was given (the process's, or a test's), and
 * what the bin prints its own lines through. Escaping is idempotent: an escaped line has no
 * control character left to escape.
 */
export function printableIo(io: CliIo): CliIo {
  return {
    out: (line) => io.out(printable(line)),
    err: (line) => io.err(printable(line)),
    isTty: io.isTty,
    status: (text) => io.status(printable(text)),
  };
}
