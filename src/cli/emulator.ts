import { pino } from 'pino';
import { createEmulator, DEFAULT_API_KEYS, type DeliveryAttempt, type Emulator } from '../emulator/index.js';
import { CliError, messageOf, type CliIo } from './output.js';

/** Options of the `emulator` command (as commander hands them over). */
export interface EmulatorCommandOptions {
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  /** Delivery attempts per event (1 = no retries). */
  readonly retryAttempts?: string | undefined;
  /** Log deliveries to stderr. */
  readonly verbose?: boolean | undefined;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CliError(`--port: expected a port number 0-65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function parseAttempts(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const attempts = Number(value);
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new CliError(`--retry-attempts: expected an integer >= 1, got ${JSON.stringify(value)}`);
  }
  return attempts;
}

/**
 * One `--verbose` line per delivery attempt: type, URL, status code (or the error), attempt and
 * real milliseconds, e.g. `delivery incoming http://127.0.0.1:3000/in 200 attempt 1 12 ms`.
 */
export function formatDeliveryAttempt(attempt: DeliveryAttempt): string {
  const outcome =
    attempt.status === null ? `error (${attempt.error ?? 'no response'})` : String(attempt.status);
  const drift = attempt.undocumented ? ' undocumented' : '';
  return `delivery ${attempt.type} ${attempt.url} ${outcome} attempt ${attempt.attempt} ${attempt.ms} ms${drift}`;
}

/**
 * Starts the standalone emulator and prints its URL, the seeded API keys and numbers, and how to
 * configure a webhook with curl. Resolves with the running emulator; the caller stops it on
 * SIGINT/SIGTERM.
 */
export async function startEmulatorCommand(options: EmulatorCommandOptions, io: CliIo): Promise<Emulator> {
  const port = parsePort(options.port);
  const host = options.host ?? '127.0.0.1';
  const attempts = parseAttempts(options.retryAttempts);
  const emulator = createEmulator({
    ...(attempts === undefined ? {} : { retry: { attempts } }),
    ...(options.verbose === true
      ? {
          logger: pino({ level: 'info' }, pino.destination(2)),
          onDeliveryAttempt: (attempt: DeliveryAttempt) => io.err(formatDeliveryAttempt(attempt)),
        }
      : {}),
  });
  let url: string;
  try {
    url = await emulator.listen(port, host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`port ${port} on ${host} is already in use`, 1, { cause: error });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new CliError(`cannot listen on host ${host}`, 1, { cause: error });
    throw new CliError(`cannot start the emulator: ${messageOf(error)}`, 1, { cause: error });
  }
  const description = emulator.describe();
  io.out(`Inspector: ${url}/  (open in a browser: scope, live delivery log, triggers)`);
  io.out(`Emulator listening on ${url}`);
  io.out(
    `API key: ${DEFAULT_API_KEYS.supervisor}  (supervisor of client demo; send it as the Authorization header)`,
  );
  const others = description.users.filter((user) => user.apiKey !== DEFAULT_API_KEYS.supervisor);
  if (others.length > 0) io.out('Other API keys:');
  for (const user of others)
    io.out(`  ${user.apiKey}  (${user.email}, ${user.liveChatRole ?? user.role}, client ${user.clientRef})`);
  for (const number of description.numbers) {
    io.out(
      `Number ${number.msisdn}  ${number.kind}  client ${number.clientRef}  messagingNumberId ${number.messagingNumberId}`,
    );
  }
  io.out(`Control surface: ${url}/_emulator  (state, triggers, deliveries, faults)`);
  io.out('Configure a webhook:');
  io.out(
    `  curl -X POST ${url}/Messaging/MessagingClientWebHook -H 'authorization: ${DEFAULT_API_KEYS.supervisor}' ` +
      `-H 'content-type: application/json' -d '{"incomingMessageURL":"http://127.0.0.1:3000/webhooks/incoming"}'`,
  );
  io.out('Send a customer message:');
  io.out(
    `  curl -X POST ${url}/_emulator/customer-message -H 'content-type: application/json' ` +
      `-d '{"number":"+27820000001","from":"+27831234567","text":"Hi"}'`,
  );
  io.out('Press Ctrl+C to stop.');
  return emulator;
}
