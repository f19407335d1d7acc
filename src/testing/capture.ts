import { createInterface } from 'node:readline';
import { z } from 'zod';
import { createJsonlSink } from '../capture/jsonl.js';
import type { CaptureRecord, CaptureSink } from '../pipeline/options.js';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../schemas/index.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import { openRegularFile } from '../util/files.js';
import { DEFAULT_TOKEN_HEADER } from '../util/token-header.js';

export type { CaptureRecord, CaptureSink } from '../pipeline/options.js';
export { serialiseRecord } from '../capture/jsonl.js';

/** Masking applied by {@link createJsonlCapture} before a record is written. */
export interface CaptureRedaction {
  /**
   * Header names (any case) removed on top of the default secret headers.
   * @default []
   */
  readonly headers?: readonly string[] | undefined;
  /**
   * Payload field names masked wherever they occur in the JSON body (e.g. `['text', 'sender']`).
   * Masking re-serialises the body, so a masked capture no longer replays byte for byte, and a
   * body that is not JSON is written unchanged.
   * @default [] (bodies are written exactly as received)
   */
  readonly bodyFields?: readonly string[] | undefined;
  /** What a masked field's value becomes. @default '[REDACTED]' */
  readonly mask?: string | undefined;
}

/** Options of {@link createJsonlCapture}. */
export interface JsonlCaptureOptions {
  /** The JSONL file appended to (created with its directory when missing). */
  readonly file: string;
  /**
   * Redaction before writing: a {@link CaptureRedaction}, or a function returning the record to
   * write (`undefined` skips the record).
   * @default secret headers removed (authorization, proxy-authorization, cookie, x-webhook-token); bodies untouched
   */
  readonly redact?: CaptureRedaction | ((record: CaptureRecord) => CaptureRecord | undefined) | undefined;
  /**
   * Bytes waiting to be written past which new records are dropped (and counted in
   * `dropped`) instead of buffered, so a slow disk cannot grow memory without bound.
   * @default 16_777_216 (16 MiB)
   */
  readonly maxPendingBytes?: number | undefined;
  /** Called when the file cannot be written; capturing stops. @default errors are kept for flush()/close() */
  readonly onError?: ((error: Error) => void) | undefined;
  /** Permissions of the file when created (before the umask); a symbolic link at `file` is refused. @default 0o600 */
  readonly fileMode?: number | undefined;
  /** Permissions of each directory of `file` created (before the umask). @default 0o700 */
  readonly directoryMode?: number | undefined;
}

/** The keys of {@link JsonlCaptureOptions}; anything else throws at construction. */
export const JSONL_CAPTURE_OPTION_KEYS = optionKeys<JsonlCaptureOptions>()([
  'file',
  'redact',
  'maxPendingBytes',
  'onError',
  'fileMode',
  'directoryMode',
]);
/** The keys of {@link CaptureRedaction}: a misspelled one would leave data unmasked. */
export const CAPTURE_REDACTION_KEYS = optionKeys<CaptureRedaction>()(['headers', 'bodyFields', 'mask']);

/** A capture sink writing JSON lines, with controls. */
export interface JsonlCapture extends CaptureSink {
  /** Resolves once every record handed over so far is written; rejects if the file failed. */
  flush(): Promise<void>;
  /** Writes what is pending, then closes the file; later records are dropped. */
  close(): Promise<void>;
  /** Records written to the stream so far. */
  readonly written: number;
  /** Records dropped: over `maxPendingBytes`, after close, or after a write error. */
  readonly dropped: number;
}

/** Header names removed from every capture by default, whatever the receiver already removed. */
export const DEFAULT_CAPTURE_SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  DEFAULT_TOKEN_HEADER,
];

const DEFAULT_MASK = '[REDACTED]';

/**
 * Creates a capture sink for the receiver's `capture` option that appends one JSON line per
 * request to `file`, in arrival order. Writing goes through a write stream: the sink returns at
 * once and never delays the acknowledgement.
 *
 * @example
 * const capture = createJsonlCapture({ file: '.captures/webhooks.jsonl' });
 * app.use('/webhooks', createWebhookRouter({ capture, onIncoming }));
 * process.on('SIGTERM', () => void capture.close());
 * // later: npx messaging-webhooks replay .captures/webhooks.jsonl --to http://localhost:3000/webhooks
 */
export function createJsonlCapture(options: JsonlCaptureOptions): JsonlCapture {
  checkOptions('createJsonlCapture', options, JSONL_CAPTURE_OPTION_KEYS);
  checkNestedKeys('createJsonlCapture', 'redact', options.redact, CAPTURE_REDACTION_KEYS);
  const redact = toRedactor(options.redact);
  // The sink validates `file` and `maxPendingBytes` (TypeErrors naming them).
  const sink = createJsonlSink(options.file, {
    maxPendingBytes: options.maxPendingBytes,
    onError: options.onError,
    fileMode: options.fileMode,
    directoryMode: options.directoryMode,
  });

  function capture(record: CaptureRecord): void {
    const kept = redact(record);
    if (kept !== undefined) sink.writeRecord(kept);
  }

  const captureSink = Object.assign(capture, { flush: () => sink.flush(), close: () => sink.close() });
  // Live counters: getters defined on the function (Object.assign would copy their current values).
  return Object.defineProperties(captureSink, {
    written: { get: () => sink.written, enumerable: true },
    dropped: { get: () => sink.dropped, enumerable: true },
  }) as JsonlCapture;
}

function toRedactor(
  redact: JsonlCaptureOptions['redact'],
): (record: CaptureRecord) => CaptureRecord | undefined {
  if (typeof redact === 'function') return redact;
  const removed = new Set([...DEFAULT_CAPTURE_SECRET_HEADERS, ...(redact?.headers ?? [])].map(lower));
  const fields = new Set(redact?.bodyFields ?? []);
  const mask = redact?.mask ?? DEFAULT_MASK;
  return (record) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(record.headers)) {
      if (!removed.has(lower(name))) headers[name] = value;
    }
    const body = fields.size === 0 ? record.body : maskBody(record.body, fields, mask);
    return { ...record, headers, body };
  };
}

const lower = (name: string): string => name.toLowerCase();

function maskBody(body: string, fields: ReadonlySet<string>, mask: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = fields.has(key) && inner !== null && inner !== undefined ? mask : visit(inner);
    }
    return out;
  };
  return JSON.stringify(visit(parsed));
}

const captureLineSchema = z.object({
  receivedAt: z.string(),
  type: z.enum(WEBHOOK_TYPES).nullish(),
  path: z.string(),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string(),
});

/**
 * A hand-written line `{ "type"?: ..., "payload": {...}, "receivedAt"?: ... }` (e.g. payloads
 * exported with jq): read as a capture of that payload on its type's endpoint.
 */
const payloadLineSchema = z
  .object({
    receivedAt: z.string().default(''),
    type: z.enum(WEBHOOK_TYPES).nullish(),
    payload: z.unknown(),
  })
  .transform(({ receivedAt, type, payload }) => ({
    receivedAt,
    type,
    path: type == null ? '/' : `/${WEBHOOK_PATHS[type]}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  }));

/** One line of a capture file: a record, or why the line could not be read. */
export type CaptureLine =
  | { readonly line: number; readonly record: CaptureRecord; readonly error?: undefined }
  | { readonly line: number; readonly record?: undefined; readonly error: string };

/** Thrown by {@link readCapture} when the file itself cannot be opened. */
export class CaptureFileError extends Error {
  override readonly name = 'CaptureFileError';
  readonly code = 'capture_file' as const;
  constructor(
    readonly file: string,
    options: { readonly cause: unknown },
  ) {
    super(`cannot read capture file ${file}: ${describeFsError(options.cause)}`, options);
  }
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/** Parses one line of a capture file (1-based `line` for messages). */
export function parseCaptureLine(text: string, line: number): CaptureLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `line ${line}: invalid JSON (${(error as Error).message})` };
  }
  const isPayloadLine =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'payload' in value &&
    !('body' in value);
  const parsed = isPayloadLine ? payloadLineSchema.safeParse(value) : captureLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue === undefined || issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
    return { line, error: `line ${line}: not a capture record (${where}${issue?.message ?? 'invalid'})` };
  }
  const { type, ...rest } = parsed.data;
  return { line, record: { ...rest, type: type ?? undefined } };
}

/**
 * Reads a capture file line by line, yielding each record with its line number. Besides capture
 * records, a line may be `{ "type"?, "payload" }` (the payload is serialised as the body). A line
 * that is not JSON, or neither of those, is yielded with an `error` naming its line, and reading
 * goes on; blank lines are skipped. Rejects with {@link CaptureFileError} when the file cannot be
 * opened.
 *
 * @example
 * for await (const { line, record, error } of readCapture('.captures/webhooks.jsonl')) {
 *   if (error) console.warn(error); else console.log(line, record.type, record.body.length);
 * }
 */
export async function* readCapture(file: string): AsyncGenerator<CaptureLine, void, undefined> {
  let handle;
  try {
    // a regular file only: a FIFO or a device is refused at once, never waited on
    handle = await openRegularFile(file);
  } catch (error) {
    throw new CaptureFileError(file, { cause: error });
  }
  const lines = createInterface({
    input: handle.createReadStream({ encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let number = 0;
  try {
    for await (const text of lines) {
      number += 1;
      if (text.trim() === '') continue;
      yield parseCaptureLine(text, number);
    }
  } finally {
    lines.close();
    await handle.close().catch(() => undefined);
  }
}
