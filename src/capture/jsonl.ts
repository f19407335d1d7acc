import type { WriteStream } from 'node:fs';
import type { DeadLetter, UnfinishedJob, WebhookJob } from '../dispatch/types.js';
import type { CaptureRecord } from './types.js';
import { WEBHOOK_PATHS } from '../schemas/index.js';
import { checkFileMode, describeOpenFailure, openAppendStream } from '../util/files.js';

/** Options of {@link createJsonlSink}. */
export interface JsonlSinkOptions {
  /**
   * Bytes waiting to be written past which new lines are dropped (and counted in `dropped`)
   * instead of buffered, so a slow disk cannot grow memory without bound.
   * @default 16_777_216 (16 MiB)
   */
  readonly maxPendingBytes?: number | undefined;
  /** Called when the file cannot be written; writing stops. @default errors are kept for flush()/close() */
  readonly onError?: ((error: Error) => void) | undefined;
  /**
   * Permissions of the file when the sink creates it (an existing file keeps its own), before
   * the process umask. The lines hold phone numbers and message text: owner only by default.
   * @default 0o600
   */
  readonly fileMode?: number | undefined;
  /**
   * Permissions of each missing directory of the path the sink creates, before the umask.
   * @default 0o700
   */
  readonly directoryMode?: number | undefined;
}

/**
 * A JSON-lines file opened for appending: the one writer behind the capture sink
 * (`createJsonlCapture`), the shutdown spill ({@link spillToJsonl}) and dead-letter files. A
 * write returns at once (it never waits for the disk); `flush` waits for the disk.
 */
export interface JsonlSink {
  /** Appends one line (a newline is added); false when it was dropped. */
  write(line: string): boolean;
  /** Appends one capture record as a line ({@link serialiseRecord}); false when it was dropped. */
  writeRecord(record: CaptureRecord): boolean;
  /** Resolves once every line handed over so far is written; rejects if the file failed. */
  flush(): Promise<void>;
  /** Writes what is pending, then closes the file; later lines are dropped. Rejects if the file failed. */
  close(): Promise<void>;
  /** The file appended to. */
  readonly file: string;
  /** Lines handed to the stream so far. */
  readonly written: number;
  /** Lines dropped: over `maxPendingBytes`, after close, or after a write error. */
  readonly dropped: number;
}

const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;

/**
 * Opens `file` (and its directory, created when missing) for appending JSON lines. A file it
 * creates is `fileMode` (0600), each directory it creates `directoryMode` (0700); a symbolic link
 * at `file` itself is refused, never followed, and so is anything but a regular file (a FIFO is
 * refused at once, never waited on): the failure reaches `onError`, `flush()` and `close()`.
 *
 * @example
 * const sink = createJsonlSink('.spill/unfinished.jsonl');
 * sink.writeRecord(jobToCaptureRecord(job));
 * await sink.close();
 */
export function createJsonlSink(file: string, options: JsonlSinkOptions = {}): JsonlSink {
  if (typeof file !== 'string' || file === '') {
    throw new TypeError(`file: expected a non-empty path, got ${JSON.stringify(file)}`);
  }
  const maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
  if (!Number.isInteger(maxPendingBytes) || maxPendingBytes < 1) {
    throw new TypeError(
      `maxPendingBytes: expected a positive integer, got ${String(options.maxPendingBytes)}`,
    );
  }
  checkFileMode('fileMode', options.fileMode);
  checkFileMode('directoryMode', options.directoryMode);
  // the one file opener (util/files.ts): 0600/0700, no symbolic link, regular files only, no FIFO wait
  const stream: WriteStream = openAppendStream(file, {
    fileMode: options.fileMode,
    directoryMode: options.directoryMode,
  });
  let failure: Error | undefined;
  let closed = false;
  let written = 0;
  let dropped = 0;
  let pending = 0;
  let waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  const settleWaiters = (): void => {
    if (pending > 0 && failure === undefined) return;
    const current = waiters;
    waiters = [];
    for (const waiter of current) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
  };
  stream.on('error', (error) => {
    failure ??= describeOpenFailure(file, error);
    options.onError?.(error);
    settleWaiters();
  });

  function write(line: string): boolean {
    if (closed || failure !== undefined || stream.writableLength > maxPendingBytes) {
      dropped += 1;
      return false;
    }
    pending += 1;
    written += 1;
    // The return value (backpressure) is ignored on purpose: a caller on the request path must
    // not wait for the disk; maxPendingBytes bounds the buffer instead.
    stream.write(`${line}\n`, (error) => {
      // A failed open or write reaches this callback before the stream's 'error' event.
      if (error) failure ??= describeOpenFailure(file, error);
      pending -= 1;
      settleWaiters();
    });
    return true;
  }

  const flush = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ resolve, reject });
      settleWaiters();
    });

  return {
    write,
    writeRecord: (record) => write(serialiseRecord(record)),
    flush,
    async close() {
      if (!closed) {
        closed = true;
        await flush().catch(() => undefined);
        await new Promise<void>((resolve) => stream.end(resolve));
      }
      if (failure !== undefined) throw failure;
    },
    file,
    get written() {
      return written;
    },
    get dropped() {
      return dropped;
    },
  };
}

/** The JSON line of a capture record: fixed key order; an undefined type is written as null. */
export function serialiseRecord(record: CaptureRecord): string {
  return JSON.stringify({
    receivedAt: record.receivedAt,
    type: record.type ?? null,
    path: record.path,
    headers: record.headers,
    body: record.body,
  });
}

/**
 * An accepted job as a capture record, as if it had just been received on its type's endpoint:
 * `messaging-webhooks replay` (or `replay()` of `messaging-webhooks/testing`) sends it again. The
 * body is the validated payload re-serialised; the request id travels as `x-request-id`.
 */
function jobToCaptureRecord(job: WebhookJob): CaptureRecord {
  return {
    receivedAt: new Date(job.receivedAt).toISOString(),
    path: `/${WEBHOOK_PATHS[job.type]}`,
    type: job.type,
    headers: { 'content-type': 'application/json', 'x-request-id': job.requestId },
    body: JSON.stringify(job.payload),
  };
}

/**
 * An `onUnfinished` handler that appends each unfinished job to a JSONL file in the capture
 * format and resolves once the lines are on disk (before `close` resolves). Given a path, the
 * file is opened only when there is something to spill, and closed after; given a
 * {@link JsonlSink}, the sink is flushed and left open (e.g. one shared with dead letters).
 * Replay the file after a restart: `npx messaging-webhooks replay <file> --to <url>`.
 *
 * @example
 * const router = createWebhookRouter({ onChatbot, onUnfinished: spillToJsonl('/var/spool/webhooks/unfinished.jsonl') });
 * process.on('SIGTERM', () => void router.close(10_000).then(() => process.exit(0)));
 */
export function spillToJsonl(
  target: string | JsonlSink,
  options: JsonlSinkOptions = {},
): (jobs: readonly UnfinishedJob[]) => Promise<void> {
  if (typeof target === 'string' && target === '') {
    throw new TypeError('spillToJsonl: expected a non-empty path or a JsonlSink, got ""');
  }
  return async function spillUnfinished(jobs) {
    if (jobs.length === 0) return;
    const sink =
      typeof target === 'string'
        ? createJsonlSink(target, { maxPendingBytes: Number.MAX_SAFE_INTEGER, ...options })
        : target;
    // Spilled lines are not dropped for size: they are the only copy of acknowledged events.
    for (const { job } of jobs) {
      if (!sink.writeRecord(jobToCaptureRecord(job))) {
        throw new Error(`spill to ${sink.file} dropped an event (file failed or closed)`);
      }
    }
    if (typeof target === 'string') await sink.close();
    else await sink.flush();
  };
}

/**
 * Dead letters written as capture records: callable as an `onDeadLetter` handler (of a router or
 * a BullMQ worker), with `flush` and `close`. See {@link deadLettersToJsonl}.
 */
export interface DeadLetterJsonl {
  /** Appends the dead letter's event as a capture record; false when the line was dropped. */
  (deadLetter: DeadLetter): boolean;
  /** Resolves once every dead letter so far is on disk; rejects if the file failed. */
  flush(): Promise<void>;
  /**
   * Flushes; closes the file when it was opened from a path (a later dead letter opens it again,
   * appending), leaves a given {@link JsonlSink} open. Rejects if the file failed.
   */
  close(): Promise<void>;
  /** The file appended to. */
  readonly file: string;
}

/**
 * Writes each dead letter (an event whose callback failed on every attempt) to a JSONL file in
 * the capture format, the same lines as {@link spillToJsonl}: once the callback is fixed,
 * `npx messaging-webhooks replay <file> --to <url>` (or `replay()` of `messaging-webhooks/testing`)
 * sends the events again. Given a path, the file is opened at the first dead letter, so a
 * healthy receiver creates no file; given a {@link JsonlSink}, it shares that sink (e.g. with
 * the shutdown spill). Lines are never dropped for size: they are the only copy of acknowledged
 * events. The pipeline option `deadLetterSink` uses this.
 *
 * @example
 * const router = createWebhookRouter({ onChatbot, deadLetterSink: '/var/spool/webhooks/dead.jsonl' });
 * // or by hand, e.g. for a BullMQ worker:
 * const worker = createWorker({ connection, handlers: { onChatbot, onDeadLetter: deadLettersToJsonl('dead.jsonl') } });
 */
export function deadLettersToJsonl(
  target: string | JsonlSink,
  options: JsonlSinkOptions = {},
): DeadLetterJsonl {
  if (typeof target === 'string' ? target === '' : typeof target?.writeRecord !== 'function') {
    throw new TypeError(
      `deadLetterSink: expected a non-empty path or a JsonlSink, got ${typeof target === 'string' ? '""' : typeof target}`,
    );
  }
  const file = typeof target === 'string' ? target : target.file;
  let opened: JsonlSink | undefined;
  const sink = (): JsonlSink =>
    typeof target === 'string'
      ? (opened ??= createJsonlSink(target, { maxPendingBytes: Number.MAX_SAFE_INTEGER, ...options }))
      : target;
  const write = (deadLetter: DeadLetter): boolean => sink().writeRecord(jobToCaptureRecord(deadLetter.job));
  return Object.assign(write, {
    file,
    flush: () => (typeof target === 'string' ? (opened?.flush() ?? Promise.resolve()) : target.flush()),
    async close() {
      if (typeof target !== 'string') return target.flush();
      const current = opened;
      opened = undefined;
      await current?.close();
    },
  });
}
