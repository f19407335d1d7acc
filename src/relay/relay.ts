import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { CaptureRecord } from '../capture/types.js';
import type { Dispatcher } from '../dispatch/index.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import type { DedupeOptions } from '../pipeline/options.js';
import { createFetchHandler } from '../receiver/fetch.js';
import { WEBHOOK_PATHS, type ChatbotPayloadVersion } from '../schemas/index.js';
import { checkOptions, optionKeys, positiveInteger } from '../util/options.js';
import { RelayBuffer, type RelayBufferStats } from './buffer.js';
import { sseFrame } from './sse.js';

/** Options of {@link createRelay}. */
export interface RelayOptions extends LoggerOptions {
  /**
   * The secret a listener authenticates with (`Authorization: Bearer <secret>`), at least 16
   * characters: the relay is reachable from the internet, and whoever holds it reads every event.
   */
  readonly secret: string;
  /**
   * The token the platform's requests carry (in the configured URL, `?token=`), as the receiver's
   * `token` option: `false` accepts requests without one. @default undefined (open, with a warning)
   */
  readonly token?: string | readonly string[] | false | undefined;
  /** Path prefix the webhook endpoints live under, e.g. `/webhooks`. @default '' */
  readonly basePath?: string | undefined;
  /**
   * Events kept while no listener has acknowledged them; past this the oldest is dropped (and
   * counted, and the listener told). @default 10_000
   */
  readonly maxBuffered?: number | undefined;
  /** Milliseconds between keep-alive comments on an idle stream (proxies close silent ones). @default 15_000 */
  readonly keepAliveMs?: number | undefined;
  /** The receiver's deduplication (chatbot events by eventId, ...). @default the receiver's in-memory defaults */
  readonly dedupe?: DedupeOptions | false | undefined;
  /** Validate chatbot events as this payload version instead of detecting it. */
  readonly chatbotPayloadVersion?: ChatbotPayloadVersion | undefined;
  /** Largest accepted body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number | undefined;
}

/** The keys of {@link RelayOptions}; anything else throws at construction. */
const RELAY_OPTION_KEYS = optionKeys<RelayOptions>()([
  'secret',
  'token',
  'basePath',
  'maxBuffered',
  'keepAliveMs',
  'dedupe',
  'chatbotPayloadVersion',
  'bodyLimit',
  'logger',
  'redactLogs',
]);

/** What a relay has seen. */
export interface RelayStats extends RelayBufferStats {
  /** True while a listener's stream is open. */
  readonly listening: boolean;
}

/**
 * A relay: a web-standard request handler (`Request` → `Response`) serving the platform's webhook
 * endpoints (the package's receiver: validated, deduplicated, answered at once) and the listener's
 * stream, with its counts.
 */
export type Relay = ((request: Request) => Promise<Response>) & {
  stats(): RelayStats;
  /** Ends the listener's stream and stops taking webhooks (they get 503, so the platform retries). */
  close(): Promise<void>;
};

/** The relay's own paths (outside `basePath`). */
export const RELAY_PATHS = {
  /** `GET`: the event stream (`text/event-stream`), `Last-Event-ID` acknowledges up to it. */
  events: '/_relay/events',
  /** `POST {"ids": [1, 2]}`: acknowledges events, which the relay then forgets. */
  ack: '/_relay/ack',
  /** `GET`: the counts ({@link RelayStats}). */
  stats: '/_relay/stats',
} as const;

/** The stream's event names. */
export const RELAY_EVENTS = {
  /** A webhook: `data` is a {@link RelayedEvent} as JSON, `id` its id. */
  webhook: 'webhook',
  /** Events were dropped past `maxBuffered`: `data` is `{"dropped": <total>}`. */
  dropped: 'dropped',
  /** Another listener connected: this stream ends. */
  replaced: 'replaced',
} as const;

const DEFAULT_MAX_BUFFERED = 10_000;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Ids one acknowledgement may carry. */
const MAX_ACK_IDS = 10_000;

const ackSchema = z.strictObject({
  ids: z.array(z.number().int().positive()).max(MAX_ACK_IDS),
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Creates a relay for developing against the real platform: deploy it where the platform reaches
 * it (a Node process with `messaging-webhooks relay`, or this handler in any runtime with web
 * `Request`/`Response`, e.g. `Deno.serve(relay)`, `Bun.serve({ fetch: relay })` or a Hono route)
 * and configure its URL as the webhook URLs. It answers the platform at once (the receiver's
 * validation, deduplication and 200), keeps each accepted event in order, and streams it to the
 * one listener connected (`messaging-webhooks listen --relay <url> --forward-to <local app>`),
 * which acknowledges each event once the local app has answered it. Unacknowledged events are
 * sent again when a listener (re)connects; while none is, events wait, at most `maxBuffered`.
 *
 * One relay keeps its buffer in memory: run one instance (on Cloudflare, inside one Durable
 * Object). A newer listener replaces an older one.
 *
 * @example
 * const relay = createRelay({ secret: process.env.RELAY_SECRET!, token: process.env.WEBHOOK_TOKEN });
 * Deno.serve((request) => relay(request));
 */
export function createRelay(options: RelayOptions): Relay {
  checkOptions('createRelay', options, RELAY_OPTION_KEYS);
  if (typeof options.secret !== 'string' || options.secret.length < 16) {
    throw new TypeError(
      'secret: expected a string of at least 16 characters (the listener authenticates with it)',
    );
  }
  const maxBuffered = positiveInteger('maxBuffered', options.maxBuffered ?? DEFAULT_MAX_BUFFERED);
  const keepAliveMs = positiveInteger('keepAliveMs', options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/relay');
  const secret = digest(options.secret);
  const buffer = new RelayBuffer(maxBuffered);
  /** Captured requests waiting for their job (or their answer), by the request id the relay gave them. */
  const captured = new Map<string, { record: CaptureRecord; requestId: string }>();
  let stream: { send(text: string): void; end(): void } | undefined;
  let closed = false;

  const dispatcher: Dispatcher = {
    enqueue(job) {
      const entry = captured.get(job.requestId);
      captured.delete(job.requestId);
      if (entry === undefined || closed) return 'closed';
      const { event, dropped } = buffer.push({
        // a detected type (the `/` endpoint) goes to its own endpoint of the app
        record: { ...entry.record, type: job.type, path: `/${WEBHOOK_PATHS[job.type]}` },
        orderingKey: job.orderingKey,
        requestId: entry.requestId,
      });
      stream?.send(
        sseFrame({ id: String(event.id), event: RELAY_EVENTS.webhook, data: JSON.stringify(event) }),
      );
      if (dropped) {
        logger.warn({ dropped: buffer.stats().dropped }, 'relay buffer full: oldest event dropped');
        stream?.send(
          sseFrame({
            event: RELAY_EVENTS.dropped,
            data: JSON.stringify({ dropped: buffer.stats().dropped }),
          }),
        );
      }
      return 'accepted';
    },
    idle: () => Promise.resolve(),
    close: () => Promise.resolve(true),
    counts: () => ({ queued: 0, running: 0 }),
  };

  const receiver = createFetchHandler({
    basePath: options.basePath,
    token: options.token,
    dedupe: options.dedupe,
    chatbotPayloadVersion: options.chatbotPayloadVersion,
    bodyLimit: options.bodyLimit,
    logger: options.logger,
    redactLogs: options.redactLogs,
    dispatcher,
    capture(record) {
      const key = record.headers['x-request-id'];
      if (key === undefined) return;
      captured.set(key, {
        record: withoutRelayHeaders(record),
        requestId: record.headers[ORIGINAL_REQUEST_ID] ?? key,
      });
    },
  });

  function authorized(request: Request): boolean {
    const header = request.headers.get('authorization') ?? '';
    const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    return timingSafeEqual(digest(given), secret);
  }

  function openStream(request: Request): Response {
    const last = Number(request.headers.get('last-event-id') ?? '');
    if (Number.isInteger(last) && last > 0) buffer.acknowledgeUpTo(last);
    if (stream !== undefined) {
      stream.send(sseFrame({ event: RELAY_EVENTS.replaced, data: '{}' }));
      stream.end();
    }
    const encoder = new TextEncoder();
    let timer: ReturnType<typeof setInterval> | undefined;
    let mine: typeof stream;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        mine = {
          send(text) {
            if (open) controller.enqueue(encoder.encode(text));
          },
          end() {
            if (!open) return;
            open = false;
            clearInterval(timer);
            if (stream === mine) stream = undefined;
            controller.close();
          },
        };
        stream = mine;
        mine.send(`retry: 2000\n\n`);
        const { dropped } = buffer.stats();
        if (dropped > 0)
          mine.send(sseFrame({ event: RELAY_EVENTS.dropped, data: JSON.stringify({ dropped }) }));
        for (const event of buffer.waiting()) {
          mine.send(
            sseFrame({ id: String(event.id), event: RELAY_EVENTS.webhook, data: JSON.stringify(event) }),
          );
        }
        timer = setInterval(() => mine?.send(': keep-alive\n\n'), keepAliveMs);
        // a Node timer must not keep the process up for an idle stream
        (timer as { unref?: () => void }).unref?.();
        logger.info({ buffered: buffer.stats().buffered }, 'relay listener connected');
      },
      cancel() {
        clearInterval(timer);
        if (stream === mine) stream = undefined;
        logger.info('relay listener disconnected');
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  }

  async function acknowledge(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return json(400, {
        status: 'ERROR',
        code: 'invalid_json',
        message: 'expected a JSON body {"ids": [1, 2]}',
      });
    }
    const parsed = ackSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return json(400, {
        status: 'ERROR',
        code: 'invalid_ack',
        message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'} (expected {"ids": [1, 2]})`,
      });
    }
    const acknowledged = buffer.acknowledge(parsed.data.ids);
    return json(200, { acknowledged, buffered: buffer.stats().buffered });
  }

  async function relay(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === RELAY_PATHS.events || path === RELAY_PATHS.ack || path === RELAY_PATHS.stats) {
      if (!authorized(request)) {
        return json(
          401,
          {
            status: 'ERROR',
            code: 'unauthorized',
            message: 'expected Authorization: Bearer <the relay secret>',
          },
          { 'www-authenticate': 'Bearer' },
        );
      }
      if (path === RELAY_PATHS.events && request.method === 'GET') {
        if (closed) return new Response(null, { status: 204 });
        return openStream(request);
      }
      if (path === RELAY_PATHS.ack && request.method === 'POST') return acknowledge(request);
      if (path === RELAY_PATHS.stats && request.method === 'GET') return json(200, stats());
      return json(405, {
        status: 'ERROR',
        code: 'method_not_allowed',
        message: `${request.method} ${path} is not served`,
      });
    }
    // The request id that ties the captured request to its job: the relay's own, always unique
    // (a platform retry may repeat its x-request-id); the platform's goes on to the app.
    const requestId = randomUUID();
    const headers = new Headers(request.headers);
    const original = headers.get('x-request-id');
    headers.set('x-request-id', requestId);
    headers.set(ORIGINAL_REQUEST_ID, original ?? requestId);
    try {
      return await receiver(new Request(request, { headers }));
    } finally {
      // invalid, duplicate or refused: no job took it
      captured.delete(requestId);
    }
  }

  function stats(): RelayStats {
    return { ...buffer.stats(), listening: stream !== undefined };
  }

  return Object.assign(relay, {
    stats,
    async close() {
      closed = true;
      stream?.end();
      await receiver.close();
    },
  });
}

/** Carries the platform's `x-request-id` past the relay's own, through the capture. */
const ORIGINAL_REQUEST_ID = 'x-relay-original-request-id';

/** The captured headers as the platform sent them: its own request id back, the relay's gone. */
function withoutRelayHeaders(record: CaptureRecord): CaptureRecord {
  const { [ORIGINAL_REQUEST_ID]: original, 'x-request-id': _relays, ...headers } = record.headers;
  return { ...record, headers: original === undefined ? headers : { ...headers, 'x-request-id': original } };
}

export type { RelayedEvent, RelayBufferStats } from './buffer.js';
