import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { readCapture } from '../testing/capture.js';
import { replay, type ReplayItemReport, type ReplayPacing, type ReplayReport } from '../testing/replay.js';
import { CLI_CONCURRENCY, httpUrl } from './defaults.js';
import { CliError, messageOf, type CliIo } from './output.js';

/** Options of the `replay` command (as commander hands them over). */
export interface ReplayCommandOptions {
  readonly to: string;
  readonly token?: string | undefined;
  /** `none`, `original` or a factor (2 = twice as fast as captured). */
  readonly speed?: string | undefined;
  /** Per-request timeout, milliseconds. */
  readonly timeout?: string | undefined;
  /** Requests in flight at once (commander parses it). */
  readonly concurrency?: number | undefined;
}

/** Reads `--speed`: 'none', 'original' (or 1) or a positive factor. */
export function parseSpeed(value: string | undefined): ReplayPacing {
  if (value === undefined || value === 'none' || value === 'max') return 'none';
  if (value === 'original') return 'original';
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new CliError(`--speed: expected none, original or a positive number, got ${JSON.stringify(value)}`);
  }
  return factor;
}

/** `--to`: an http(s) URL (the replay's own option, parsed where the command runs). */
function parseTarget(value: string): URL {
  try {
    return httpUrl(value, 'http://localhost:3000/webhooks');
  } catch (error) {
    throw new CliError(`--to: ${messageOf(error)}; got ${JSON.stringify(value)}`);
  }
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 10_000;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new CliError(`--timeout: expected milliseconds > 0, got ${JSON.stringify(value)}`);
  return ms;
}

/** Counts the non-blank lines of a file (the progress bar's total); the file is known to open. */
async function countLines(file: string): Promise<number> {
  let count = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim() !== '') count += 1;
  return count;
}

const BAR_WIDTH = 28;

function bar(done: number, total: number, ok: number, failed: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total}  ok ${ok}  failed ${failed}`;
}

function itemLine(item: ReplayItemReport, done: number, total: number): string {
  const where = item.line === undefined ? `#${item.index + 1}` : `line ${item.line}`;
  const what = item.path === undefined ? '' : ` ${item.type ?? 'unknown'} ${item.path}`;
  // A refused record's line says why (its path is not echoed: it is what was refused).
  const outcome = item.ok
    ? `${item.status ?? ''} ${item.latencyMs ?? 0} ms`
    : `FAILED: ${item.error ?? 'unknown error'}`;
  return `${done}/${total} ${where}${what} → ${outcome}`;
}

/**
 * The `replay` command: sends every captured payload of `file` to `--to` in order, with a
 * progress bar on a terminal (a line per item otherwise), then a summary. Stops at the first
 * item the target did not answer (unreachable URL). Resolves with the report; the caller exits
 * non-zero when anything failed.
 */
export async function replayCommand(
  file: string,
  options: ReplayCommandOptions,
  io: CliIo,
): Promise<ReplayReport> {
  const target = parseTarget(options.to);
  const pacing = parseSpeed(options.speed);
  const timeoutMs = parseTimeout(options.timeout);
  // Opening the file first turns a missing file into one clear error before anything is sent.
  const probe = readCapture(file);
  await probe.next();
  await probe.return(undefined);
  const total = await countLines(file);
  let ok = 0;
  let failed = 0;
  const report = await replay(file, target, {
    pacing,
    timeoutMs,
    stopOn: 'network-error',
    concurrency: options.concurrency ?? CLI_CONCURRENCY,
    ...(options.token === undefined ? {} : { token: options.token }),
    onProgress(item, { done }) {
      if (item.ok) ok += 1;
      else failed += 1;
      if (io.isTty) {
        io.status(bar(done, total, ok, failed));
        if (!item.ok) {
          io.status('');
          io.out(itemLine(item, done, total));
          io.status(bar(done, total, ok, failed));
        }
      } else {
        io.out(itemLine(item, done, total));
      }
    },
  });
  if (io.isTty) io.status(`${bar(report.items.length, total, ok, failed)}\n`);

  const statuses = new Map<string, number>();
  for (const item of report.items) {
    const key =
      item.status === undefined
        ? item.refused === true
          ? 'refused'
          : item.path === undefined
            ? 'unreadable'
            : 'no answer'
        : String(item.status);
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  const breakdown = [...statuses].map(([key, count]) => `${key}: ${count}`).join(', ');
  io.out(
    `Replayed ${report.sent} of ${total} to ${target.href}: ${report.succeeded} ok, ${report.failed} failed` +
      `${breakdown === '' ? '' : ` (${breakdown})`} in ${report.durationMs} ms`,
  );
  const unanswered = report.items.find((item) => item.path !== undefined && item.status === undefined);
  if (report.stopped && unanswered !== undefined) {
    throw new CliError(
      `${unanswered.error ?? 'no answer'}; stopped after ${report.items.length} of ${total}`,
    );
  }
  const refused = report.items.filter((item) => item.refused === true).length;
  if (refused > 0) {
    io.err(
      `${refused} record${refused === 1 ? '' : 's'} refused and not sent (a path leaving ${target.href}, or a method override): see the lines above`,
    );
  }
  return report;
}
