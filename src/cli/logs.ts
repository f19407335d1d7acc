/**
 * `messaging-webhooks logs [--follow]` and `resend <delivery>`: the emulator's delivery log in a
 * terminal, over its control surface (`GET /_emulator/deliveries`, the inspector's change
 * stream, `POST /_emulator/deliveries/:id/resend`), as `stripe logs tail` and `stripe events
 * resend` do for Stripe. Loads neither the emulator nor zod.
 */
import { customerOf, deliveryContent } from '../emulator/inspector/summary.js';
import { readSse } from '../relay/sse.js';
import { CliError, type CliIo } from './output.js';
import { call, deliveryOutcome, describeDelivery, settledDeliveries, type Delivery } from './trigger.js';

/** Options of `logs` (as commander hands them over, parsed). */
export interface LogsCommandOptions {
  readonly emulator: string;
  /** Keep printing deliveries as they finish, until Ctrl+C. */
  readonly follow?: boolean | undefined;
  readonly type?: string | undefined;
  /** The delivery state: queued, held, delivering, delivered, failed. */
  readonly state?: string | undefined;
  /** The client number (msisdn) the event belongs to. */
  readonly number?: string | undefined;
  /** The receiver's HTTP status. */
  readonly status?: number | undefined;
  /** How many past deliveries to print first. */
  readonly limit: number;
  /** One JSON object per line instead of text. */
  readonly json?: boolean | undefined;
  /** URLs with their tokens. */
  readonly showSecrets?: boolean | undefined;
}

/** A delivery as `/_emulator/deliveries` lists it, with the fields `logs` prints. */
type LoggedDelivery = Delivery & {
  readonly emittedAt: number;
  readonly messagingNumber: string;
  readonly payload: Readonly<Record<string, unknown>>;
};

interface DeliveryPage {
  readonly items: readonly LoggedDelivery[];
  readonly nextCursor: string | null;
}

const FINAL = new Set(['delivered', 'failed']);

/** One text line per delivery: sequence, emulator time, type, number, customer, content, URL, outcome. */
function logLine(entry: LoggedDelivery): string {
  const time = new Date(entry.emittedAt).toISOString().slice(11, 19);
  const customer = customerOf(entry.type, entry.payload);
  const content = deliveryContent(entry.type, entry.payload);
  const outcome = deliveryOutcome(entry);
  const marks = [
    entry.duplicateOf === null ? '' : ' [duplicate]',
    entry.resendOf == null ? '' : ' [resend]',
  ].join('');
  return (
    `#${entry.sequence} ${time} ${entry.type.padEnd(8)} ${entry.messagingNumber}` +
    `${customer === undefined ? '' : ` ${customer}`}  ${content}  → ${entry.url}  ${outcome}${marks}`
  );
}

function query(options: LogsCommandOptions, extra: Record<string, string>): string {
  const params = new URLSearchParams(extra);
  if (options.type !== undefined) params.set('type', options.type);
  if (options.number !== undefined) params.set('number', options.number);
  // while following, a delivery is printed once it has finished: the state is filtered here
  if (options.state !== undefined && options.follow !== true) params.set('state', options.state);
  if (options.showSecrets === true) params.set('reveal', 'true');
  return `/_emulator/deliveries?${params.toString()}`;
}

function matches(entry: LoggedDelivery, options: LogsCommandOptions): boolean {
  return (
    (options.state === undefined || entry.state === options.state) &&
    (options.status === undefined || entry.responseStatus === options.status)
  );
}

/**
 * Prints the last `limit` deliveries (oldest of them first) and, with `follow`, every delivery
 * as it finishes, until `signal` aborts. Each delivery is printed once, when final (delivered or
 * failed) while following; without `follow`, in whatever state it is.
 */
export async function logsCommand(
  options: LogsCommandOptions,
  io: CliIo,
  signal?: AbortSignal,
): Promise<void> {
  const print = (entry: LoggedDelivery): void =>
    io.out(options.json === true ? JSON.stringify(entry) : logLine(entry));
  const base = options.emulator;
  const recent = (await call(
    base,
    'GET',
    query(options, { order: 'desc', limit: String(Math.max(options.limit, 1)) }),
  )) as DeliveryPage;
  const past = [...recent.items].reverse().filter((entry) => matches(entry, options));
  const shown = options.limit === 0 ? [] : past.slice(-options.limit);
  if (options.follow !== true) {
    for (const entry of shown) print(entry);
    if (shown.length === 0 && options.json !== true)
      io.err('No deliveries (with these filters) in the log yet.');
    return;
  }
  // Following: every delivery after `floor` is looked at again until it is final.
  const printed = new Map<string, number>();
  let floor = recent.items.length === 0 ? 0 : Math.min(...recent.items.map((entry) => entry.sequence)) - 1;
  const history = new Set(shown.map((entry) => entry.id));
  for (const entry of recent.items)
    if (!history.has(entry.id) && FINAL.has(entry.state)) printed.set(entry.id, entry.sequence);
  if (options.json !== true) io.err(`Following the delivery log of ${base} (Ctrl+C to stop)`);

  const pass = async (): Promise<void> => {
    let cursor = floor;
    let firstUnfinished: number | undefined;
    let last = floor;
    for (;;) {
      const page = (await call(
        base,
        'GET',
        query(options, { order: 'asc', limit: '500', cursor: String(cursor) }),
      )) as DeliveryPage;
      for (const entry of page.items) {
        last = entry.sequence;
        if (!FINAL.has(entry.state)) {
          firstUnfinished ??= entry.sequence;
          continue;
        }
        if (printed.has(entry.id)) continue;
        printed.set(entry.id, entry.sequence);
        if (matches(entry, options)) print(entry);
      }
      if (page.nextCursor === null) break;
      cursor = Number(page.nextCursor);
    }
    floor = firstUnfinished === undefined ? last : firstUnfinished - 1;
    for (const [id, sequence] of printed) if (sequence <= floor) printed.delete(id);
  };

  await pass();
  const stopped = (): boolean => signal?.aborted === true;
  // The inspector's change stream says when the log changed; a pass reads what did. The stream
  // ends only when the emulator stops or the signal aborts, so there is one stream per command.
  if (stopped()) return;
  const wentAway = (error: unknown): CliError =>
    new CliError(`the emulator at ${base} went away (${(error as Error).message})`, 1, { cause: error });
  let response: Response;
  try {
    response = await fetch(`${base}/_emulator/inspector/events`, {
      headers: { accept: 'text/event-stream' },
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (stopped()) return;
    throw wentAway(error);
  }
  if (response.status !== 200 || response.body === null) {
    throw new CliError(`the emulator at ${base} is stopping (its change stream answered ${response.status})`);
  }
  try {
    for await (const _event of readSse(response.body)) await pass();
  } catch (error) {
    if (stopped()) return;
    throw wentAway(error);
  }
  if (stopped()) return;
  throw new CliError(`the emulator at ${base} stopped`);
}

/** The options of `resend`. */
export interface ResendCommandOptions {
  readonly emulator: string;
  readonly wait: boolean;
  readonly showSecrets?: boolean | undefined;
}

/** A delivery id as given: a log entry's id, or its sequence number (`12` or `#12`). */
async function deliveryIdOf(base: string, given: string): Promise<string> {
  const sequence = /^#?(\d+)$/.exec(given)?.[1];
  if (sequence === undefined) return given;
  const page = (await call(
    base,
    'GET',
    `/_emulator/deliveries?order=asc&limit=1&cursor=${Number(sequence) - 1}`,
  )) as DeliveryPage;
  const entry = page.items[0];
  if (entry === undefined || entry.sequence !== Number(sequence)) {
    throw new CliError(`no delivery #${sequence} in the emulator's log (it keeps the newest ones)`);
  }
  return entry.id;
}

/**
 * `resend <delivery>`: sends a logged delivery's body again to its URL (a new log entry, marked
 * as a resend), then waits for the answer and prints it. Resolves false when it failed.
 */
export async function resendCommand(
  given: string,
  options: ResendCommandOptions,
  io: CliIo,
): Promise<boolean> {
  const base = options.emulator;
  const id = await deliveryIdOf(base, given);
  const queued = (await call(
    base,
    'POST',
    `/_emulator/deliveries/${encodeURIComponent(id)}/resend`,
    {},
  )) as Delivery;
  if (!options.wait) {
    io.out(describeDelivery(queued, options.showSecrets === true).trimStart());
    return true;
  }
  const recent = await settledDeliveries(base, options.showSecrets === true);
  const entry = recent.find((item) => item.id === queued.id) ?? queued;
  io.out(`resent ${given}:`);
  io.out(describeDelivery(entry, options.showSecrets === true));
  return entry.state !== 'failed';
}
