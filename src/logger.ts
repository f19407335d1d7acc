import { pino, type Logger } from 'pino';

/** Log paths redacted by default: tokens, phone numbers and message text. */
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

/** Options for the library's logger. */
export interface LoggerOptions {
  /** A pino logger. @default a silent logger */
  readonly logger?: Logger | undefined;
  /** Redact tokens, phone numbers and message text in logs. @default true */
  readonly redactLogs?: boolean | undefined;
}

/** The library's logger: a child of the injected one (silent by default), redacting by default. */
export function createLibraryLogger(options: LoggerOptions, name: string): Logger {
  const base = options.logger ?? pino({ level: 'silent' });
  return options.redactLogs === false
    ? base.child({ lib: name })
    : base.child({ lib: name }, { redact: { paths: [...REDACT_PATHS], censor: '[redacted]' } });
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
