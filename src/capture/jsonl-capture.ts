/*
 * The production capture sink: `createJsonlCapture` writes every request the receiver read to a
 * JSONL file, secrets removed, for `replay` and `validate`. It lives beside the capture types and
 * the JSONL writer; `messaging-webhooks/testing` re-exports it, where users import it.
 */
import { createJsonlSink } from './jsonl.js';
import { CAPTURE_SECRET_HEADERS, type CaptureRecord, type CaptureSink } from './types.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import { DEFAULT_TOKEN_HEADER } from '../util/token-header.js';

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
   * @default secret headers removed (authorization, proxy-authorization, cookie, set-cookie, x-webhook-token); bodies untouched
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

/**
 * Header names removed from every capture by default, whatever the receiver already removed: the
 * secret headers the receiver never hands to a sink (authorization, proxy-authorization, cookie,
 * set-cookie) and the default token header, so a record from elsewhere (a relay, a hand-written sink) loses them too.
 */
export const DEFAULT_CAPTURE_SECRET_HEADERS: readonly string[] = [
  ...CAPTURE_SECRET_HEADERS,
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
