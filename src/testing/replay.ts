import {
  createServer,
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isWebhookType, WEBHOOK_PATHS, type WebhookType } from '../schemas/index.js';
import { checkOptions, optionKeys } from '../util/options.js';
import { tokenHeaderOf } from '../util/token-header.js';
import { readCapture, type CaptureRecord } from './capture.js';

/** A payload to replay without a capture: its type (for the path) and the payload itself. */
export interface ReplayPayload {
  /** Sent to `/<path of type>`; undefined sends to `/` (the auto-detecting endpoint). */
  readonly type?: WebhookType | undefined;
  /** Serialised with JSON.stringify. */
  readonly payload: unknown;
}

/** What {@link replay} reads: a JSONL capture file, or an array of records or payloads. */
export type ReplaySource = string | readonly (CaptureRecord | ReplayPayload)[];

/** A node:http request listener; an Express app is one. */
export type ReplayListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Where {@link replay} sends: a base URL (the router's mount, e.g. `http://localhost:3000/webhooks`)
 * or an app run in-process on 127.0.0.1 port 0 for the duration of the replay (mount your router
 * inside it as usual and give `basePath`).
 */
export type ReplayTarget = string | URL | ReplayListener;

/** How items are spaced in time. */
export type ReplayPacing = 'none' | 'original' | number;

/** One item of a replay, as reported. */
export interface ReplayItemReport {
  /** 0-based position in the source (bad file lines included). */
  readonly index: number;
  /** Line of the capture file, when replaying a file. */
  readonly line?: number | undefined;
  readonly type: WebhookType | undefined;
  /** Request path sent (below the target), when the item was sent. */
  readonly path?: string | undefined;
  /** HTTP status, or undefined when no answer came (network error, timeout, unreadable line). */
  readonly status: number | undefined;
  /** True for a 2xx answer. */
  readonly ok: boolean;
  /** Why the item failed: a network error, a non-2xx answer, an unreadable line. */
  readonly error?: string | undefined;
  /** Milliseconds from sending to the full answer. */
  readonly latencyMs?: number | undefined;
  /** The answer's body (utf8), for diagnostics. */
  readonly responseBody?: string | undefined;
  /**
   * True when the record was refused and not sent: its path would leave the target's base (a `..`
   * segment, an absolute URL) or override the method (`_method`), or a captured header it would
   * forward has a name or value Node cannot send (`café€`, a line separator); `error` says which.
   */
  readonly refused?: boolean | undefined;
}

/** Result of {@link replay}. */
export interface ReplayReport {
  /** One entry per source item, in order. */
  readonly items: readonly ReplayItemReport[];
  /** Items sent (an answer came or not). */
  readonly sent: number;
  /** Items answered 2xx. */
  readonly succeeded: number;
  /** Items not answered 2xx, unreadable lines included. */
  readonly failed: number;
  /** True when `stopOn` ended the replay early. */
  readonly stopped: boolean;
  /** Wall-clock duration, milliseconds. */
  readonly durationMs: number;
}

/** Options of {@link replay}. */
export interface ReplayOptions {
  /**
   * `'none'`: back to back; `'original'`: the gaps between the captured `receivedAt` times; a
   * number: those gaps divided by it (2 = twice as fast). Items without `receivedAt` are not
   * delayed. @default 'none'
   */
  readonly pacing?: ReplayPacing | undefined;
  /** A token sent in `tokenHeader`, for a receiver with `token` set. @default none */
  readonly token?: string | undefined;
  /** Header carrying `token`. @default 'x-webhook-token' */
  readonly tokenHeader?: string | undefined;
  /**
   * Path prefix added between the target and each item's path, e.g. `/webhooks` for an app that
   * mounts the router there (a URL target can carry it in its path instead). @default ''
   */
  readonly basePath?: string | undefined;
  /** Extra headers on every request. @default {} */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Which of each capture's own headers are sent again: `true` forwards those of
   * {@link DEFAULT_REPLAY_HEADERS} (content-type and what the platform's deliveries carry), a
   * list forwards those named (and no others), `false` none. A capture file is data, not
   * instructions: its `authorization`, `cookie`, `x-forwarded-for` or `x-http-method-override`
   * are never sent unless listed here. `headers` and `token` are added either way. @default true
   */
  readonly forwardHeaders?: boolean | readonly string[] | undefined;
  /** Per-request timeout, milliseconds. @default 10_000 */
  readonly timeoutMs?: number | undefined;
  /**
   * Stop early: `'network-error'` after the first item that got no answer (target unreachable);
   * `'failure'` after the first item not answered 2xx. @default 'none'
   */
  readonly stopOn?: 'none' | 'network-error' | 'failure' | undefined;
  /**
   * Items sent at once. One conversation's items (same chatParticipantId, else the same customer
   * and number, else the same messagingNumber) still go one at a time in source order, as a
   * receiver expects them; `1` sends everything one at a time, in source order.
   * @default 1
   */
  readonly concurrency?: number | undefined;
  /** Called after each item with its report and the running count (in the order items finish). */
  readonly onProgress?:
    | ((
        item: ReplayItemReport,
        progress: { readonly done: number; readonly total: number | undefined },
      ) => void)
    | undefined;
  /** Aborts the replay between items (and the request in flight). */
  readonly signal?: AbortSignal | undefined;
}

/** The keys of {@link ReplayOptions}; anything else throws before the first request. */
export const REPLAY_OPTION_KEYS = optionKeys<ReplayOptions>()([
  'pacing',
  'concurrency',
  'token',
  'tokenHeader',
  'basePath',
  'headers',
  'forwardHeaders',
  'timeoutMs',
  'stopOn',
  'onProgress',
  'signal',
]);

/** Thrown by {@link replay} for a target or options it cannot use. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
  readonly code = 'replay' as const;
}

interface PreparedItem {
  readonly index: number;
  readonly line?: number | undefined;
  readonly type: WebhookType | undefined;
  readonly path: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly receivedAt: number | undefined;
  /** Why the record is not sent (see {@link refusedReplayPath}). */
  readonly refused?: string | undefined;
}

type SourceEntry = PreparedItem | { readonly index: number; readonly line: number; readonly error: string };

/**
 * The captured headers {@link replay} sends again by default: the body's type, and what the
 * platform's deliveries carry (the interface documents no signature or other header of its own;
 * `x-request-id` is what the receiver logs as the request's id).
 */
export const DEFAULT_REPLAY_HEADERS: readonly string[] = ['content-type', 'user-agent', 'x-request-id'];

/** Headers never forwarded, even when listed: they describe the original connection, not the payload. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
  'accept-encoding',
]);

/** Query parameters frameworks read as the request's method (Rails, Laravel, method-override). */
const METHOD_OVERRIDE_PARAMS = new Set([
  '_method',
  'method',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]);

/**
 * Why a record's path cannot be sent, or undefined. A capture file is data: its path must name an
 * endpoint below the target's base, so it may not leave it (a `.`/`..` segment, raw or
 * percent-encoded; an absolute or protocol-relative URL; a backslash), nor turn the POST into
 * another method through a query parameter.
 */
function refusedReplayPath(path: string): string | undefined {
  if (/^[a-z][a-z\d+.-]*:/i.test(path) || path.startsWith('//') || path.startsWith('\\'))
    return 'an absolute URL, not a path below the target';
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'a control character or a backslash in the path';
  const queryStart = path.indexOf('?');
  const pathname = queryStart === -1 ? path : path.slice(0, queryStart);
  for (const segment of pathname.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'malformed percent-encoding in the path';
    }
    if (decoded === '.' || decoded === '..') return 'a dot segment that would leave the target';
    if (/[/\\]/.test(decoded)) return 'an encoded slash in the path';
  }
  if (queryStart !== -1) {
    for (const name of new URLSearchParams(path.slice(queryStart + 1)).keys()) {
      if (METHOD_OVERRIDE_PARAMS.has(name.toLowerCase())) return `a method override (${name})`;
    }
  }
  return undefined;
}

/**
 * Sends captured (or hand-made) payloads to a receiver, one at a time in source order (or
 * `concurrency` at a time, each conversation still in order), and resolves with a report per
 * item. A captured body is sent byte for byte as it was received.
 * Never rejects for a failed item (the item's report says why); rejects with
 * {@link CaptureFileError} when the file cannot be opened and {@link ReplayError} for a bad target.
 *
 * @example
 * // in a jest test: replay production traffic into the app under test
 * const report = await replay('.captures/webhooks.jsonl', app, { basePath: '/webhooks' });
 * expect(report.failed).toBe(0);
 *
 * @example
 * await replay([{ type: 'incoming', payload: fixtures.incoming.TEXT }], 'http://localhost:3000/webhooks', {
 *   token: process.env.WEBHOOK_TOKEN,
 *   pacing: 'original',
 * });
 */
export async function replay(
  source: ReplaySource,
  target: ReplayTarget,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  checkOptions('replay', options, REPLAY_OPTION_KEYS);
  const pacing = options.pacing ?? 'none';
  const speed = pacing === 'none' ? undefined : pacing === 'original' ? 1 : pacing;
  if (speed !== undefined && !(typeof speed === 'number' && Number.isFinite(speed) && speed > 0)) {
    throw new TypeError(`pacing: expected 'none', 'original' or a positive number, got ${String(pacing)}`);
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`timeoutMs: expected a positive number, got ${String(options.timeoutMs)}`);
  }
  const forward = options.forwardHeaders;
  if (
    forward !== undefined &&
    typeof forward !== 'boolean' &&
    !(Array.isArray(forward) && forward.every((name) => typeof name === 'string'))
  ) {
    throw new TypeError(
      `forwardHeaders: expected a boolean or a list of header names, got ${typeof forward}`,
    );
  }
  // the caller's own headers are checked once, before anything is sent (a capture's, per item)
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const why = unsendableHeader(name, value);
    if (why !== undefined) throw new TypeError(`headers: ${why}`);
  }
  if (options.token !== undefined) {
    const why = unsendableHeader(tokenHeaderOf(options), options.token);
    if (why !== undefined) throw new TypeError(`token: ${why}`);
  }
  const stopOn = options.stopOn ?? 'none';
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency: expected an integer >= 1, got ${String(options.concurrency)}`);
  }
  const started = performance.now();
  const inProcess = typeof target === 'function' ? await startServer(target) : undefined;
  try {
    const base = inProcess?.url ?? parseTarget(target as string | URL);
    const basePath = (options.basePath ?? '').replace(/\/+$/, '');
    const total = typeof source === 'string' ? undefined : source.length;
    const items: ReplayItemReport[] = [];
    let firstCaptured: number | undefined;
    let firstSentAt = 0;
    let stopped = false;
    /** Per conversation: its last item's send, which its next item waits for. */
    const lanes = new Map<string, Promise<void>>();
    const inFlight = new Set<Promise<void>>();
    const record = (report: ReplayItemReport): void => {
      items.push(report);
      options.onProgress?.(report, { done: items.length, total });
      if (
        (stopOn === 'failure' && !report.ok) ||
        (stopOn === 'network-error' && report.status === undefined && report.path !== undefined)
      ) {
        stopped = true;
      }
    };

    for await (const entry of entries(source)) {
      // a free slot first, then the pacing: with concurrency 1, each item waits for the last
      while (inFlight.size >= concurrency && !stopped) await Promise.race(inFlight);
      if (options.signal?.aborted) stopped = true;
      if (stopped) break;
      if ('error' in entry) {
        record({
          index: entry.index,
          line: entry.line,
          type: undefined,
          status: undefined,
          ok: false,
          error: entry.error,
        });
        continue;
      }
      if (entry.refused !== undefined) {
        record({
          index: entry.index,
          line: entry.line,
          type: entry.type,
          status: undefined,
          ok: false,
          refused: true,
          error: `refused, not sent: ${entry.refused}`,
        });
        continue;
      }
      if (speed !== undefined && entry.receivedAt !== undefined) {
        if (firstCaptured === undefined) {
          firstCaptured = entry.receivedAt;
          firstSentAt = performance.now();
        } else {
          // Scheduled from the first item, so waits do not add up the time each send took.
          const due = firstSentAt + (entry.receivedAt - firstCaptured) / speed;
          const wait = due - performance.now();
          if (wait > 0) {
            await sleep(wait, undefined, options.signal ? { signal: options.signal } : {}).catch(
              () => undefined,
            );
          }
        }
        if (options.signal?.aborted) {
          stopped = true;
          break;
        }
      }
      const key = conversationOf(entry);
      const task: Promise<void> = (lanes.get(key) ?? Promise.resolve()).then(async () => {
        // an item queued behind its conversation is not sent once the replay stopped
        if (!stopped) record(await send(entry, base, basePath, options, timeoutMs));
      });
      lanes.set(key, task);
      inFlight.add(task);
      // both ways, so that a rejected task (an onProgress that threw) is not a second,
      // unhandled rejection besides the one Promise.all below reports
      const done = (): void => {
        inFlight.delete(task);
        if (lanes.get(key) === task) lanes.delete(key);
      };
      task.then(done, done);
    }
    await Promise.all(inFlight);
    // one entry per item in source order, whatever order they finished in
    items.sort((a, b) => a.index - b.index);
    const sent = items.filter((item) => item.path !== undefined).length;
    const succeeded = items.filter((item) => item.ok).length;
    return {
      items,
      sent,
      succeeded,
      failed: items.length - succeeded,
      stopped,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await inProcess?.close();
  }
}

/**
 * The conversation an item belongs to, for ordering: the chat (chatParticipantId), else the
 * customer on a number (sender and receiver, whichever way round: incoming and status events of
 * one customer share it), else the number (session and partner events); '' when unreadable.
 */
function conversationOf(item: PreparedItem): string {
  let payload: unknown;
  try {
    payload = JSON.parse(item.body);
  } catch {
    return '';
  }
  if (typeof payload !== 'object' || payload === null) return '';
  const field = (name: string): string | undefined => {
    const value = (payload as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const chat = field('chatParticipantId');
  if (chat !== undefined) return `chat ${chat}`;
  const [sender, receiver] = [field('sender'), field('receiver')];
  if (sender !== undefined && receiver !== undefined) return `pair ${[sender, receiver].sort().join(' ')}`;
  const number = field('messagingNumber');
  return number === undefined ? '' : `number ${number}`;
}

async function* entries(source: ReplaySource): AsyncGenerator<SourceEntry, void, undefined> {
  if (typeof source === 'string') {
    let index = 0;
    for await (const line of readCapture(source)) {
      if (line.error !== undefined) yield { index, line: line.line, error: line.error };
      else yield { ...fromRecord(line.record, index), line: line.line };
      index += 1;
    }
    return;
  }
  if (!Array.isArray(source)) throw new TypeError('source: expected a file path or an array');
  const list: readonly unknown[] = source;
  for (let index = 0; index < list.length; index += 1) {
    const item = list[index];
    if (isCaptureRecord(item)) yield fromRecord(item, index);
    else if (typeof item === 'object' && item !== null && 'payload' in item) {
      yield fromPayload(item, index);
    } else throw new TypeError(`source[${index}]: expected a capture record or { type?, payload }`);
  }
}

function isCaptureRecord(item: unknown): item is CaptureRecord {
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof (item as CaptureRecord).body === 'string' &&
    typeof (item as CaptureRecord).path === 'string'
  );
}

function fromRecord(record: CaptureRecord, index: number): PreparedItem {
  const time = Date.parse(record.receivedAt);
  const refused = refusedReplayPath(record.path);
  return {
    index,
    type: record.type,
    ...(refused === undefined ? {} : { refused }),
    path: record.path.startsWith('/') ? record.path : `/${record.path}`,
    body: record.body,
    headers: record.headers,
    receivedAt: Number.isNaN(time) ? undefined : time,
  };
}

function fromPayload(item: ReplayPayload, index: number): PreparedItem {
  const type = isWebhookType(item.type) ? item.type : undefined;
  return {
    index,
    type,
    path: type === undefined ? '/' : `/${WEBHOOK_PATHS[type]}`,
    body: typeof item.payload === 'string' ? item.payload : JSON.stringify(item.payload),
    headers: {},
    receivedAt: undefined,
  };
}

function parseTarget(target: string | URL): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ReplayError(`target: expected an http(s) URL, got ${JSON.stringify(String(target))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ReplayError(`target: expected an http(s) URL, got ${JSON.stringify(String(target))}`);
  }
  return url;
}

function joinUrl(base: URL, basePath: string, path: string): URL {
  const url = new URL(base);
  const prefix = `${url.pathname.replace(/\/+$/, '')}${basePath}`;
  const queryStart = path.indexOf('?');
  const pathname = queryStart === -1 ? path : path.slice(0, queryStart);
  url.pathname = `${prefix}${pathname}` || '/';
  if (queryStart !== -1) {
    for (const [name, value] of new URLSearchParams(path.slice(queryStart + 1)))
      url.searchParams.append(name, value);
  }
  return url;
}

function send(
  item: PreparedItem,
  base: URL,
  basePath: string,
  options: ReplayOptions,
  timeoutMs: number,
): Promise<ReplayItemReport> {
  const url = joinUrl(base, basePath, item.path);
  const headers: Record<string, string> = {};
  const forward = options.forwardHeaders ?? true;
  const allowed = new Set(
    (forward === true ? DEFAULT_REPLAY_HEADERS : forward === false ? [] : forward).map((name) =>
      name.toLowerCase(),
    ),
  );
  for (const [name, value] of Object.entries(item.headers)) {
    const lower = name.toLowerCase();
    if (allowed.has(lower) && !HOP_BY_HOP.has(lower)) headers[lower] = value;
  }
  headers['content-type'] ??= 'application/json';
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.token !== undefined) headers[tokenHeaderOf(options)] = options.token;
  const body = Buffer.from(item.body, 'utf8');
  headers['content-length'] = String(body.length);
  const shown = `${url.pathname}${url.search}`;
  const reportBase = { index: item.index, line: item.line, type: item.type, path: shown };
  // a captured header Node refuses (a value outside Latin-1, a line separator) makes
  // http.request throw: the item is refused and reported, never thrown out of the replay
  for (const [name, value] of Object.entries(headers)) {
    const why = unsendableHeader(name, value);
    if (why !== undefined) {
      return Promise.resolve({
        index: item.index,
        line: item.line,
        type: item.type,
        status: undefined,
        ok: false,
        refused: true,
        error: `refused, not sent: ${why}`,
      });
    }
  }
  const started = performance.now();
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<ReplayItemReport>((resolve) => {
    let settled = false;
    const finish = (report: ReplayItemReport): void => {
      if (settled) return;
      settled = true;
      resolve(report);
    };
    let req: ReturnType<typeof request>;
    try {
      req = request(
        url,
        {
          method: 'POST',
          headers,
          agent: false,
          timeout: timeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) =>
            finish({
              ...reportBase,
              status: res.statusCode,
              ok: false,
              error: describeNetworkError(error, url),
            }),
          );
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const ok = status >= 200 && status < 300;
            const responseBody = Buffer.concat(chunks).toString('utf8');
            finish({
              ...reportBase,
              status,
              ok,
              latencyMs: Math.round((performance.now() - started) * 10) / 10,
              responseBody,
              ...(ok ? {} : { error: `answered ${status}${summariseBody(responseBody)}` }),
            });
          });
        },
      );
    } catch (error) {
      // anything else http.request refuses synchronously: this item fails, the replay goes on
      finish({
        index: item.index,
        line: item.line,
        type: item.type,
        status: undefined,
        ok: false,
        refused: true,
        error: `refused, not sent: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
    );
    req.on('error', (error) =>
      finish({ ...reportBase, status: undefined, ok: false, error: describeNetworkError(error, url) }),
    );
    req.end(body);
  });
}

/**
 * Why Node would refuse to send a header (its name not a token, its value holding a character
 * outside Latin-1 or a control character), in words that quote the name but not the value; or
 * undefined.
 */
function unsendableHeader(name: string, value: string): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return `header name ${JSON.stringify(name)} is not one Node can send`;
  }
  try {
    validateHeaderValue(name, value);
  } catch {
    return `header ${JSON.stringify(name)} has a value Node cannot send (a character outside Latin-1, or a control character)`;
  }
  return undefined;
}

/** A short reason from an error answer body (`{ error: { message } }` or the text itself). */
function summariseBody(body: string): string {
  if (body === '') return '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return `: ${parsed.error.message}`;
  } catch {
    // not JSON: show the start of the text
  }
  return `: ${body.slice(0, 120)}`;
}

/** A readable network error: what failed and where, without a stack. */
function describeNetworkError(error: unknown, url: URL): string {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${url.protocol}//${url.host}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot reach ${where}: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot reach ${where}: host not found`;
    case 'ETIMEDOUT':
      return `no answer from ${where}: ${(error as Error).message}`;
    case 'ECONNRESET':
      return `${where} closed the connection`;
    case 'ABORT_ERR':
      return 'aborted';
    default:
      return `request to ${where} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function startServer(listener: ReplayListener): Promise<{ url: URL; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
