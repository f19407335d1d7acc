import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createSilentLogger } from './silent-logger.js';

/** Log paths redacted by default: tokens, phone numbers and message text. @public (the benchmarks use it) */
export const REDACT_PATHS: readonly string[] = [
  'token',
  'headers.authorization',
  'headers["x-webhook-token"]',
  ...[
    'sender',
    'receiver',
    'senderMsisdn',
    'receiverMsisdn',
    'messagingNumber',
    'waId',
    'oldNumber',
    'newNumber',
    'text',
    'messageText',
    'caption',
    'quotedText',
    'profileName',
    'username',
    'address',
    'latitude',
    'longitude',
  ].map((field) => `payload.${field}`),
];

/** What a masked value becomes in the logs. */
export const REDACTED = '[redacted]';

/** Nesting past which {@link maskPayload} stops walking (a payload is far shallower). */
const MASK_MAX_DEPTH = 32;

/**
 * A payload as logged: its shape (keys, arrays, booleans, null) with every string and number
 * replaced by `[redacted]`, at any depth. pino's redact paths name fixed paths (a wildcard spans
 * one level), so a payload logged under `payload` goes through this serializer instead: it is
 * the one way a phone number nested in a contact card or a text in a carousel cannot slip
 * through a path list that forgot it.
 */
export function maskPayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return REDACTED;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MASK_MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => maskPayload(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = maskPayload(inner, depth + 1);
  return out;
}

/** A job as logged: its type, request id and time; payload masked, keys as {@link logRef}s. */
function maskJob(job: unknown): unknown {
  if (typeof job !== 'object' || job === null) return maskPayload(job);
  const { type, requestId, receivedAt, payload, dedupeKey, orderingKey } = job as Record<string, unknown>;
  return {
    type,
    requestId,
    receivedAt,
    payload: maskPayload(payload),
    dedupeKey: typeof dedupeKey === 'string' ? logRef(dedupeKey) : undefined,
    orderingKey: typeof orderingKey === 'string' ? logRef(orderingKey) : undefined,
  };
}

/** Serializers of the redacting logger: `payload` and `job` are masked at any depth. */
const MASKING_SERIALIZERS = { payload: maskPayload, job: maskJob };

// A per-process secret: a reference cannot be reversed by hashing every phone number. Made on
// first use: a Cloudflare Worker may not generate random values at module scope.
let refSecret: Buffer | undefined;

/**
 * A short pseudonymous reference to a sender-controlled value (a dedupe key, an unlisted enum
 * value) for the logs: an HMAC-SHA256 under a per-process random secret, 16 hex characters. Equal
 * values give equal references within one process, so a duplicate's log line joins the
 * original's, while a phone number or a text cannot be read back or found by brute force.
 */
export function logRef(value: string): string {
  return createHmac('sha256', (refSecret ??= randomBytes(32)))
    .update(value)
    .digest('hex')
    .slice(0, 16);
}

/**
 * An error as logged when its message may echo a sender-controlled value (a store error naming
 * the dedupe key): `secret` is replaced by its {@link logRef} in the message and the stack. The
 * error is returned as it is when it does not contain `secret`.
 */
export function scrubError(error: unknown, secret: string | undefined): unknown {
  if (secret === undefined || secret === '' || !(error instanceof Error)) return error;
  const { message, stack } = error;
  if (!message.includes(secret) && !(stack ?? '').includes(secret)) return error;
  const ref = `<ref ${logRef(secret)}>`;
  return {
    type: error.name,
    message: message.split(secret).join(ref),
    stack: stack?.split(secret).join(ref),
    code: (error as { code?: unknown }).code,
  };
}

/** How deep a chain of causes (and an AggregateError's `errors`) is followed in a log line. */
const ERROR_MAX_DEPTH = 8;
/** Most errors of an AggregateError's `errors` logged. */
const ERROR_MAX_AGGREGATE = 10;

/** An error as every library logger writes it: see {@link serializeError}. */
interface SerializedError {
  /** The constructor's name (pino's own error serializer names it so). */
  readonly type?: string;
  readonly name?: string;
  readonly message?: string;
  readonly code?: string | number;
  readonly stack?: string;
  readonly cause?: SerializedError | string | number | boolean;
  /** An AggregateError's errors, each serialized the same way. */
  readonly errors?: readonly (SerializedError | string | number | boolean)[];
}

/**
 * The one way an error reaches a log line: an allowlist of its fields (`name`, `message`,
 * `code`, `stack`, its `cause` chain and an AggregateError's `errors`, each serialized the same
 * way), nothing else. Errors carry what failed with them: ioredis attaches the failed command
 * (`command.args`: an AUTH password, a BullMQ job with the sender's number and text), HTTP
 * clients their `config`, `request` and `response`, queues their job `data`; a serializer that
 * copied enumerable properties (pino's default) wrote all of it. Every logger the library creates
 * uses this one for `err` and `error`, with `redactLogs` on or off.
 */
export function serializeError(error: unknown): unknown {
  return serializeAt(error, 0, new Set());
}

function serializeAt(
  value: unknown,
  depth: number,
  seen: Set<object>,
): SerializedError | string | number | boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null) return { message: String(value) };
  if (seen.has(value) || depth > ERROR_MAX_DEPTH) return { message: '[cause chain cut]' };
  seen.add(value);
  const fields = value as Readonly<Record<string, unknown>>;
  const text = (key: string): string | undefined => {
    try {
      const field = fields[key];
      return typeof field === 'string' ? field : undefined;
    } catch {
      return undefined; // a throwing getter must not lose the log line
    }
  };
  const read = (key: string): unknown => {
    try {
      return fields[key];
    } catch {
      return undefined;
    }
  };
  const out: {
    -readonly [K in keyof SerializedError]: SerializedError[K];
  } = {};
  const type = value instanceof Error ? value.constructor.name : text('type');
  if (typeof type === 'string' && type !== '') out.type = type;
  const name = text('name');
  if (name !== undefined) out.name = name;
  const message = text('message');
  if (message !== undefined) out.message = message;
  const code = read('code');
  if (typeof code === 'string' || (typeof code === 'number' && Number.isFinite(code))) out.code = code;
  const stack = text('stack');
  if (stack !== undefined) out.stack = stack;
  const cause = read('cause');
  if (cause !== undefined) out.cause = serializeAt(cause, depth + 1, seen);
  const errors = read('errors');
  if (value instanceof AggregateError && Array.isArray(errors)) {
    out.errors = errors.slice(0, ERROR_MAX_AGGREGATE).map((inner) => serializeAt(inner, depth + 1, seen));
  }
  return out;
}

/** The serializers every library logger has for errors (`err` is pino's key for them). */
const ERROR_SERIALIZERS = { err: serializeError, error: serializeError };

/**
 * `logger` with the library's error serializer ({@link serializeError}): for a logger the library
 * was handed rather than made through {@link createLibraryLogger} (the emulator's).
 */
export function withSafeErrors(logger: Logger): Logger {
  return logger.child({}, { serializers: ERROR_SERIALIZERS });
}

/** Whether the options ask for redaction (the default). */
export const redactsLogs = (options: LoggerOptions): boolean => options.redactLogs !== false;

/** Options for the library's logger. */
export interface LoggerOptions {
  /** A pino logger. @default a silent logger */
  readonly logger?: Logger | undefined;
  /**
   * Keep tokens, phone numbers, BSUIDs and message text out of the logs: the library logs no
   * value from a payload (dedupe keys and unlisted enum values appear as keyed digests (`logRef`)), the
   * `payload` and `job` fields of any log line (users' `ctx.logger` lines included) are masked at
   * any depth, and the `REDACT_PATHS` are censored. `false` logs them as they are (for
   * local debugging only). @default true
   */
  readonly redactLogs?: boolean | undefined;
}

/**
 * The library's logger: a child of the injected one (silent by default), redacting by default.
 * Its children (`ctx.logger`) inherit the redaction and the masking serializers. Errors are
 * written through {@link serializeError} whether redaction is on or off.
 */
export function createLibraryLogger(options: LoggerOptions, name: string): Logger {
  const base = options.logger ?? createSilentLogger();
  return redactsLogs(options)
    ? base.child(
        { lib: name },
        {
          redact: { paths: [...REDACT_PATHS], censor: REDACTED },
          serializers: { ...MASKING_SERIALIZERS, ...ERROR_SERIALIZERS },
        },
      )
    : base.child({ lib: name }, { serializers: ERROR_SERIALIZERS });
}

/** What the library and its users' callbacks use of a logger (pino's `BaseLogger`), in message order. */
const LOGGER_SHAPE = ['child', 'level', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * Throws a TypeError at construction when `logger` is not pino-compatible, naming what it lacks:
 * `console` has no `child()` and would otherwise fail on first use. A pino logger, a pino child
 * and any object with pino's `BaseLogger` shape (a `level` string, `child()` and the six level
 * methods) pass.
 */
export function assertPinoLogger(logger: unknown, factory: string): asserts logger is Logger {
  const expected = `${factory}: logger: expected a pino-compatible logger (with ${LOGGER_SHAPE.map((name) =>
    name === 'level' ? name : `${name}()`,
  ).join(', ')})`;
  if (typeof logger !== 'object' || logger === null) {
    throw new TypeError(`${expected}; got ${logger === null ? 'null' : typeof logger}`);
  }
  const shape = logger as Readonly<Record<string, unknown>>;
  const missing = LOGGER_SHAPE.flatMap((name) =>
    name === 'level'
      ? typeof shape[name] === 'string'
        ? []
        : [name]
      : typeof shape[name] === 'function'
        ? []
        : [`${name}()`],
  );
  if (missing.length > 0) {
    throw new TypeError(`${expected}; got an object without ${missing.join(', ')}`);
  }
}
