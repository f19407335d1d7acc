/**
 * CLI output. The library never writes to the console; the CLI is the one place that does, and
 * it goes through these two functions so commands can be run with other writers in tests.
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

/** The process's stdout and stderr. */
export function processIo(): CliIo {
  return {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    isTty: process.stdout.isTTY === true,
    status: (text) => void process.stdout.write(`\r\u001b[2K${text}`),
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
