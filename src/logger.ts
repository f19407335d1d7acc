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
