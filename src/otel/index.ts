/**
 * OpenTelemetry tracing for a receiver and its BullMQ workers, through `@opentelemetry/api` (an
 * optional peer dependency: only this entry point loads it). `messaging-webhooks/otel`.
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { JobTracer, WebhookContext } from '../dispatch/index.js';
import type { RequestHead, RequestTracer, StatsBucket, WebhookPipeline } from '../pipeline/index.js';
import { parseRoute } from '../pipeline/route.js';
import { WEBHOOK_PATHS } from '../schemas/index.js';
import { checkOptions, optionKeys } from '../util/options.js';

/** What {@link traceWebhooks} traces: a receiver (router, node or fetch handler, `app.webhooks`) or a worker. */
export type TraceSource =
  { readonly pipeline: WebhookPipeline } | { trace(tracer: JobTracer | undefined): void };

/** Options of {@link traceWebhooks}. */
export interface TraceWebhooksOptions {
  /** Where the spans go. @default the global tracer provider (`trace.getTracerProvider()`) */
  readonly tracerProvider?: TracerProvider | undefined;
  /**
   * How the trace context is written into a job and read back by the worker.
   * @default the global propagator (`propagation`; the Node SDK registers W3C trace context)
   */
  readonly propagator?: TextMapPropagator | undefined;
}

/** The keys of {@link TraceWebhooksOptions}; anything else throws. */
const TRACE_WEBHOOKS_OPTION_KEYS = optionKeys<TraceWebhooksOptions>()(['tracerProvider', 'propagator']);

/** Tracing started by {@link traceWebhooks}. */
export interface WebhookTracing {
  /** Stops tracing the receiver or worker (requests under way may leave their span unended). */
  stop(): void;
}

/** The instrumentation scope of the spans. */
export const TRACER_NAME = 'messaging-webhooks';
/** `messaging.system` of every span. */
export const MESSAGING_SYSTEM = 'messaging_webhooks';

/** Span attribute names: OpenTelemetry semantic conventions (HTTP, messaging) and ours. */
export const ATTR = {
  httpRequestMethod: 'http.request.method',
  httpResponseStatusCode: 'http.response.status_code',
  urlPath: 'url.path',
  errorType: 'error.type',
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingDestinationName: 'messaging.destination.name',
  messagingMessageId: 'messaging.message.id',
  /** The webhook type, `unknown` when it could not be told. */
  type: 'messaging_webhooks.type',
  /**
   * `new` (claimed), `duplicate`, `off` (no dedupe key), `held` (another request holds the event's
   * claim: 503 `claim_held`) or `unavailable` (the store failed).
   */
  dedupe: 'messaging_webhooks.dedupe',
  /** 1 on the first try, 2 on the first retry, ... */
  attempt: 'messaging_webhooks.attempt',
  /** `success` or `failure`. */
  outcome: 'messaging_webhooks.outcome',
} as const;

const RECEIVE = 'webhook receive';
const PROCESS = 'webhook process';

/** Reads request headers for an incoming trace context (only when no span is active). */
const HEAD_GETTER: TextMapGetter<RequestHead> = {
  get: (head, key) => head.header(key),
  keys: () => [],
};
const CARRIER_SETTER: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};
const CARRIER_GETTER: TextMapGetter<Readonly<Record<string, string>>> = {
  get: (carrier, key) => (typeof carrier[key] === 'string' ? carrier[key] : undefined),
  keys: (carrier) => Object.keys(carrier),
};

/**
 * Receive span contexts by the carrier object a job holds: the in-memory dispatcher hands the same
 * job (and carrier) to the runner, so its process spans link without a registered propagator.
 */
const LOCAL_CONTEXTS = new WeakMap<object, SpanContext>();

/**
 * One traced request. When the sender sent a trace context, its span starts only once the request
 * is answered or dispatched (with the time the request arrived), because only then is it known
 * whether the sender authenticated; until then it holds both candidate parents: the context the
 * request arrived in, and that context with the sender's `traceparent` and `tracestate`.
 * Otherwise (the common case) the span starts at once: there is no choice to make, and `sent` and
 * `startTime` are never read (given as `arrived` and 0: one object per request either way).
 */
class Receive {
  dedupe: string | undefined;
  constructor(
    public span: Span | undefined,
    readonly options: SpanOptions,
    readonly url: string,
    readonly arrived: Context,
    readonly sent: Context,
    readonly startTime: number,
  ) {}
}

/** One traced attempt. */
class Attempt {
  constructor(
    readonly span: Span,
    readonly context: Context,
  ) {}
}

/**
 * The endpoint path below the mount point without its token: `/chatbot` for `/<token>/chatbot`,
 * `/` for the auto-detecting endpoint; undefined for a path that is no endpoint (it may hold anything).
 */
function endpointPath(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  const route = parseRoute(queryStart === -1 ? url : url.slice(0, queryStart), true);
  if (route === undefined) return undefined;
  return route.type === undefined ? '/' : `/${WEBHOOK_PATHS[route.type]}`;
}

const IDENTIFIER = /^[A-Za-z_][\w.:-]{0,63}$/;

/**
 * `error.type` of a failed attempt: the error's string `code` (`callback_timeout`), else its
 * `name` (`TypeError`), when it looks like an identifier; else `_OTHER`. Never its message, which
 * may carry anything (a phone number, a text).
 */
function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && IDENTIFIER.test(code)) return code;
    if (typeof name === 'string' && IDENTIFIER.test(name)) return name;
  }
  return '_OTHER';
}

/**
 * A span worth carrying on: recording, or not recording but with a context to propagate (sampled
 * out). The API's no-op span (no SDK) is told by identity first, without the id checks.
 */
function traced(span: Span): boolean {
  if (span.isRecording()) return true;
  const spanContext = span.spanContext();
  return spanContext !== INVALID_SPAN_CONTEXT && isSpanContextValid(spanContext);
}

/** The receive span's options for the common POST: one frozen object, nothing allocated per request. */
const RECEIVE_POST: SpanOptions = Object.freeze({
  kind: SpanKind.SERVER,
  attributes: Object.freeze({
    [ATTR.httpRequestMethod]: 'POST',
    [ATTR.messagingSystem]: MESSAGING_SYSTEM,
    [ATTR.messagingOperationType]: 'receive',
  }),
});

/** The methods the HTTP conventions name; any other is `_OTHER` (a fetch runtime passes any token). */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

function receiveOptions(method: string): SpanOptions {
  if (method === 'POST') return RECEIVE_POST;
  return {
    kind: SpanKind.SERVER,
    attributes: {
      ...RECEIVE_POST.attributes,
      [ATTR.httpRequestMethod]: KNOWN_METHODS.has(method) ? method : '_OTHER',
    },
  };
}

/**
 * Answers given before the token is checked, or by that check: the request is not known to come
 * from the platform, so its span takes no parent, and no `tracestate`, from the sender (a sampled
 * `traceparent` would otherwise force a span to be exported whatever the sampler says).
 */
const BEFORE_AUTHENTICATION = new Set(['not_found', 'method_not_allowed', 'unauthorized']);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The request id as `messaging.message.id` only when it is a UUID: the pipeline's own, or a
 * sender's `x-request-id` of that exact shape (which can carry nothing else). Any other sender
 * value is free text that could hold a card or phone number (`card-4111-…`).
 */
function setMessageId(span: Span, requestId: string): void {
  if (UUID.test(requestId)) span.setAttribute(ATTR.messagingMessageId, requestId);
}

/** The process span's options when no receive span is known (the job carries no trace context). */
const PROCESS_UNLINKED: SpanOptions = Object.freeze({
  kind: SpanKind.CONSUMER,
  attributes: Object.freeze({
    [ATTR.messagingSystem]: MESSAGING_SYSTEM,
    [ATTR.messagingOperationType]: 'process',
    [ATTR.messagingOperationName]: 'process',
  }),
});

function createTracer(
  tracer: Tracer,
  propagator: Pick<TextMapPropagator, 'inject' | 'extract'>,
): RequestTracer {
  /** The request's span, started on first use from the time it arrived. */
  function started(receive: Receive, authenticated: boolean): Span {
    receive.span ??= tracer.startSpan(
      RECEIVE,
      { ...receive.options, startTime: receive.startTime },
      authenticated ? receive.sent : receive.arrived,
    );
    return receive.span;
  }

  return {
    requested(request) {
      const arrived = context.active();
      const options = receiveOptions(request.method);
      // Under an HTTP instrumentation's span, a child of it; else, once the request is known to be
      // authenticated, of the trace context the sender sent, if any.
      if (trace.getSpan(arrived) === undefined) {
        const sent = propagator.extract(arrived, request, HEAD_GETTER);
        if (trace.getSpan(sent) !== undefined)
          return new Receive(undefined, options, request.url, arrived, sent, performance.now());
      }
      const span = tracer.startSpan(RECEIVE, options, arrived);
      // No SDK (the API's no-op tracer): nothing more to do for this request.
      return traced(span) ? new Receive(span, options, request.url, arrived, arrived, 0) : undefined;
    },

    dispatching(scope, job, claimed) {
      const receive = scope as Receive;
      // Dispatched: the request passed the token check.
      const span = started(receive, true);
      receive.dedupe = claimed ? 'new' : job.dedupeKey === undefined ? 'off' : 'unavailable';
      // No SDK (the API's no-op tracer) under a sender's trace context: nothing to carry.
      if (!traced(span)) return job;
      if (span.isRecording()) {
        setMessageId(span, job.requestId);
        span.setAttribute(ATTR.messagingDestinationName, job.type);
      }
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, CARRIER_SETTER);
      LOCAL_CONTEXTS.set(carrier, span.spanContext());
      return { ...job, trace: carrier };
    },

    answered(scope, type: StatsBucket, status, code) {
      const receive = scope as Receive;
      const span = receive.span ?? started(receive, !BEFORE_AUTHENTICATION.has(code));
      if (span.isRecording()) {
        span.setAttribute(ATTR.httpResponseStatusCode, status);
        span.setAttribute(ATTR.type, type);
        // A path that is no endpoint (404) may hold anything, a token included: left out.
        const path = status === 404 ? undefined : endpointPath(receive.url);
        if (path !== undefined) span.setAttribute(ATTR.urlPath, path);
        // Refused by the dedupe store before anything was dispatched.
        const dedupe =
          code === 'duplicate'
            ? 'duplicate'
            : code === 'claim_held'
              ? 'held'
              : receive.dedupe === undefined && code === 'store_unavailable'
                ? 'unavailable'
                : receive.dedupe;
        if (dedupe !== undefined) span.setAttribute(ATTR.dedupe, dedupe);
        if (status >= 400) span.setAttribute(ATTR.errorType, code);
        // Semantic conventions: a server span's status is an error for 5xx answers only.
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },

    attemptStarted(job, attempt) {
      // Parent and link: the receive span whose context the job carries. Never the active
      // context: a queue worker runs in whichever request's context started it.
      let parent = ROOT_CONTEXT;
      let receive: SpanContext | undefined;
      const carrier = job.trace;
      if (typeof carrier === 'object' && carrier !== null) {
        receive =
          LOCAL_CONTEXTS.get(carrier) ??
          trace.getSpanContext(propagator.extract(ROOT_CONTEXT, carrier, CARRIER_GETTER));
        if (receive !== undefined && isSpanContextValid(receive))
          parent = trace.setSpanContext(parent, receive);
        else receive = undefined;
      }
      const span = tracer.startSpan(
        PROCESS,
        receive === undefined ? PROCESS_UNLINKED : { ...PROCESS_UNLINKED, links: [{ context: receive }] },
        parent,
      );
      if (!traced(span)) return undefined;
      if (span.isRecording()) {
        span.setAttribute(ATTR.messagingDestinationName, job.type);
        setMessageId(span, job.requestId);
        span.setAttribute(ATTR.type, job.type);
        span.setAttribute(ATTR.attempt, attempt);
      }
      return new Attempt(span, trace.setSpan(parent, span));
    },

    runAttempt(scope, callback, payload, ctx: WebhookContext) {
      return context.with((scope as Attempt).context, callback, undefined, payload, ctx);
    },

    attemptSettled(scope, failed, error) {
      const { span } = scope as Attempt;
      if (span.isRecording()) {
        span.setAttribute(ATTR.outcome, failed ? 'failure' : 'success');
        if (failed) {
          span.setAttribute(ATTR.errorType, errorTypeOf(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      span.end();
    },
  };
}

/**
 * Traces a receiver, or a BullMQ worker, with OpenTelemetry:
 *
 * - `webhook receive` (kind SERVER), one per request: `http.request.method`, `url.path` (the
 *   endpoint below the mount point, token segment and query left out), `http.response.status_code`,
 *   `messaging.system`, `messaging.operation.type` `receive`, `messaging.message.id` (the request
 *   id when it is a UUID: the pipeline's own, never a sender's free text),
 *   `messaging_webhooks.type` and `.dedupe`, and `error.type` (the error code) on a refusal. A
 *   child of the active span (an HTTP instrumentation's), else of a trace context the request
 *   carries, but only for a request that passed the token check: one refused before it (404,
 *   405, 401) takes neither parent nor `tracestate` from the sender, so a sampled `traceparent`
 *   cannot force it past the sampler. A request carrying a trace context has its span started
 *   when it is answered or dispatched, with the time it arrived.
 * - `webhook process` (kind CONSUMER), one per callback attempt: a child of, and linked to, the
 *   receive span; `messaging.operation.type` `process`, `messaging_webhooks.attempt` and
 *   `.outcome`, `error.type` (the error's code or name, never its message) on a failure. The
 *   span is active while the callback runs, so your own spans nest under it.
 *
 * With the BullMQ dispatcher the receive span's context travels in the job (`job.trace`, written
 * by the propagator), so a worker in another process continues the receiver's trace: call
 * `traceWebhooks(worker)` there. No payload value goes into a span (no phone number, token or
 * text). Without a registered SDK the API's tracer is a no-op and each request costs one no-op
 * span; a receiver that is never traced loads nothing of OpenTelemetry.
 *
 * @example
 * import { traceWebhooks } from 'messaging-webhooks/otel';
 * traceWebhooks(webhooks); // the global tracer provider, e.g. the Node SDK's
 */
export function traceWebhooks(source: TraceSource, options: TraceWebhooksOptions = {}): WebhookTracing {
  checkOptions('traceWebhooks', options, TRACE_WEBHOOKS_OPTION_KEYS);
  // The router and the node handler are functions with a `pipeline` property.
  const target =
    (typeof source === 'object' || typeof source === 'function') && source !== null && 'pipeline' in source
      ? source.pipeline
      : source;
  if (typeof (target as { trace?: unknown } | undefined)?.trace !== 'function') {
    throw new TypeError(
      'traceWebhooks: expected a receiver with a pipeline (router, handler or app.webhooks) or a worker (createWorker)',
    );
  }
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = createTracer(provider.getTracer(TRACER_NAME), options.propagator ?? propagation);
  const traceable: { trace(tracer: RequestTracer | undefined): void } = target;
  traceable.trace(tracer);
  return {
    stop() {
      traceable.trace(undefined);
    },
  };
}
