import { STATUS_CODES } from 'node:http';
import {
  NotFoundError,
  PayloadTooLargeError,
  toErrorResponse,
  type HttpAnswer,
  type WebhookError,
} from '../errors.js';
import {
  belowBasePath,
  normaliseBasePath,
  type AcceptedHead,
  type RequestBody,
  type WebhookPipelineOptions,
} from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { NO_BODY, receiverOf, serve, type Exchange, type HeaderEntries } from './core.js';
import { Follower } from './follow.js';

/**
 * An API Gateway HTTP API event (payload format 2.0), which Lambda function URLs send too: the
 * fields the adapter reads. `@types/aws-lambda`'s `APIGatewayProxyEventV2` and
 * `LambdaFunctionURLEvent` are assignable to it.
 */
export interface LambdaHttpEventV2 {
  readonly version?: string | undefined;
  /** The path as sent; with a named stage on the default endpoint, it starts with `/<stage>`. */
  readonly rawPath: string;
  /** The query string as sent, without `?`. */
  readonly rawQueryString?: string | undefined;
  /** Header names lower-cased, repeated values joined with commas. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
  readonly body?: string | null | undefined;
  readonly isBase64Encoded?: boolean | undefined;
  readonly requestContext: {
    readonly http: { readonly method: string };
    readonly stage?: string | undefined;
  };
}

/**
 * An API Gateway REST API event (payload format 1.0), or an Application Load Balancer target event
 * (`requestContext.elb`): the fields the adapter reads. `@types/aws-lambda`'s
 * `APIGatewayProxyEvent` and `ALBEvent` are assignable to it.
 */
export interface LambdaHttpEventV1 {
  readonly httpMethod: string;
  /** REST: the resource path, without the stage. ALB: the path as sent. */
  readonly path: string;
  /** Header names as sent; REST keeps the last of repeated values. */
  readonly headers?: Readonly<Record<string, string | undefined>> | null | undefined;
  /** Every value of each header (REST always; ALB with multi-value headers on its target group). */
  readonly multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null | undefined;
  /** REST: decoded. ALB: as sent (percent-encoded). */
  readonly queryStringParameters?: Readonly<Record<string, string | undefined>> | null | undefined;
  readonly multiValueQueryStringParameters?:
    Readonly<Record<string, readonly string[] | undefined>> | null | undefined;
  readonly body?: string | null | undefined;
  readonly isBase64Encoded?: boolean | undefined;
  /** An ALB's has `elb`; a REST API's names its `stage` (not in `path`). */
  readonly requestContext?:
    { readonly elb?: unknown; readonly stage?: string | undefined } | null | undefined;
}

/** An HTTP event the Lambda handler serves: API Gateway (HTTP or REST API), a function URL, an ALB. */
export type LambdaHttpEvent = LambdaHttpEventV2 | LambdaHttpEventV1;

/** The answer, in the shape each integration expects (ALB adds `statusDescription`, and `multiValueHeaders` when its event had them). */
export interface LambdaHttpResult {
  readonly statusCode: number;
  readonly statusDescription?: string;
  readonly headers?: Record<string, string>;
  readonly multiValueHeaders?: Record<string, string[]>;
  readonly body: string;
  readonly isBase64Encoded: boolean;
}

/** Options of {@link createLambdaHandler}. */
export interface LambdaHandlerOptions extends WebhookPipelineOptions {
  /**
   * Path prefix the endpoints live under, e.g. `/webhooks` for a route `ANY /webhooks/{proxy+}`.
   * A named stage that starts an HTTP API's `rawPath` is removed first. @default ''
   */
  readonly basePath?: string | undefined;
  /**
   * Answer only once the callbacks the request queued in this process have finished (succeeded,
   * or failed on their last attempt). Lambda freezes the execution environment as soon as the
   * handler's promise settles and may end it without thawing it again, so callbacks still queued
   * in memory then may run late or never: waiting is what keeps an acknowledged event from being
   * lost, at the price of an answer that takes as long as its callbacks. With `false` the answer
   * comes at once and the callbacks are best-effort. Ignored with a dispatcher given as an object
   * (BullMQ): the event is stored before the 200 and workers run it elsewhere (docs/receiver.md,
   * "AWS Lambda"). @default true
   */
  readonly awaitCallbacks?: boolean | undefined;
}

/** The Lambda handler: `(event, context) => Promise<result>`, with the receiver's controls. */
export type LambdaWebhookHandler = ((
  event: LambdaHttpEvent,
  context?: unknown,
) => Promise<LambdaHttpResult>) &
  WebhookReceiverControls;

const NOT_FOUND = toErrorResponse(new NotFoundError());

/** Which integration an event came from: it decides how the answer is shaped. */
type Integration = 'v2' | 'rest' | 'alb';

const integrationOf = (event: LambdaHttpEvent): Integration | undefined =>
  typeof (event as LambdaHttpEventV2).rawPath === 'string' &&
  typeof (event as LambdaHttpEventV2).requestContext?.http?.method === 'string'
    ? 'v2'
    : typeof (event as LambdaHttpEventV1).httpMethod === 'string' &&
        typeof (event as LambdaHttpEventV1).path === 'string'
      ? (event as LambdaHttpEventV1).requestContext?.elb === undefined
        ? 'rest'
        : 'alb'
      : undefined;

/**
 * The request headers under lower-case names. A header given several values (REST's and the
 * ALB's `multiValueHeaders`) reads as its first, as node's request does for most headers; an
 * HTTP API joins them with commas itself.
 */
function headersOf(event: LambdaHttpEvent): Record<string, string> {
  const out: Record<string, string> = {};
  const multi = (event as LambdaHttpEventV1).multiValueHeaders;
  if (multi) {
    for (const name of Object.keys(multi)) {
      const first = multi[name]?.[0];
      if (first !== undefined) out[name.toLowerCase()] ??= first;
    }
  }
  const single = event.headers;
  if (single) {
    for (const name of Object.keys(single)) {
      const value = single[name];
      if (value !== undefined) out[name.toLowerCase()] ??= value;
    }
  }
  return out;
}

/** REST's decoded query parameters encoded again; the ALB's as they came (it does not decode them). */
function queryOf(event: LambdaHttpEventV1, encoded: boolean): string {
  const encode = encoded ? (part: string) => part : encodeURIComponent;
  const parts: string[] = [];
  const multi = event.multiValueQueryStringParameters;
  if (multi) {
    for (const name of Object.keys(multi)) {
      for (const value of multi[name] ?? []) parts.push(`${encode(name)}=${encode(value)}`);
    }
  } else if (event.queryStringParameters) {
    for (const [name, value] of Object.entries(event.queryStringParameters)) {
      if (value !== undefined) parts.push(`${encode(name)}=${encode(value)}`);
    }
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** The path and query an event names, a named stage that starts an HTTP API's path removed. */
function targetOf(event: LambdaHttpEvent, integration: Integration): string {
  if (integration !== 'v2') {
    const v1 = event as LambdaHttpEventV1;
    return v1.path + queryOf(v1, integration === 'alb');
  }
  const v2 = event as LambdaHttpEventV2;
  const stage = v2.requestContext.stage;
  let path = v2.rawPath;
  if (stage !== undefined && stage !== '$default') {
    const prefix = `/${stage}`;
    if (path === prefix) path = '/';
    else if (path.startsWith(`${prefix}/`)) path = path.slice(prefix.length);
  }
  return v2.rawQueryString ? `${path}?${v2.rawQueryString}` : path;
}

/** The answer in the integration's shape. */
function resultOf(answer: HttpAnswer, integration: Integration, multiValue: boolean): LambdaHttpResult {
  const { status, body } = answer;
  if (integration !== 'alb')
    return { statusCode: status, headers: { ...answer.headers }, body, isBase64Encoded: false };
  const statusDescription = `${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
  if (!multiValue)
    return {
      statusCode: status,
      statusDescription,
      headers: { ...answer.headers },
      body,
      isBase64Encoded: false,
    };
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) multiValueHeaders[name] = [value];
  return { statusCode: status, statusDescription, multiValueHeaders, body, isBase64Encoded: false };
}

/**
 * A Lambda event as the seam's {@link Exchange}. The body is whole already: it is read at once,
 * base64 decoded to bytes (so strict UTF-8 applies) or taken as the text the integration passed.
 */
class LambdaExchange implements Exchange {
  readonly method: string;
  readonly url: string;
  private readonly headers: Record<string, string>;
  private watching: string | undefined;
  private sent = false;
  constructor(
    private readonly event: LambdaHttpEvent,
    url: string,
    method: string,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly follower: Follower | undefined,
  ) {
    this.url = url;
    this.method = method;
    this.headers = headersOf(event);
  }

  header(name: string): string | undefined {
    return this.headers[name];
  }

  contentEncoding(): string | undefined {
    return this.headers['content-encoding'];
  }

  /** Nothing to drain: the event holds the whole body. */
  discard(): void {}

  readBody(
    limit: number,
    _timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
  ): void {
    const { body, isBase64Encoded } = this.event;
    if (body === undefined || body === null || body === '') {
      done(undefined, NO_BODY);
      return;
    }
    const raw = isBase64Encoded === true ? Buffer.from(body, 'base64') : body;
    const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
    if (size > limit) done(new PayloadTooLargeError(limit), NO_BODY);
    else done(undefined, { raw });
  }

  headerEntries(): HeaderEntries {
    return Object.entries(this.headers);
  }

  accepting(head: AcceptedHead): void {
    if (this.follower === undefined) return;
    this.follower.watch(head.requestId);
    this.watching = head.requestId;
  }

  send(answer: HttpAnswer): void {
    if (this.sent) return;
    this.sent = true;
    const queued = this.watching === undefined ? [] : this.follower!.unwatch(this.watching);
    if (answer.status !== 200 || queued.length === 0) this.resolve(answer);
    else void Promise.all(queued).then(() => this.resolve(answer));
  }
}

/**
 * The AWS Lambda adapter: one handler for API Gateway HTTP APIs (payload format 2.0), REST APIs
 * (1.0), Lambda function URLs and Application Load Balancer targets, over the same pipeline as
 * every other adapter (same options, answers and error bodies). Create it at module scope, so a
 * warm execution environment keeps its queue and dedupe store between invocations.
 *
 * By default an acknowledged request is answered once its callbacks have run
 * ({@link LambdaHandlerOptions.awaitCallbacks}). For a 200 that does not wait, hand the events
 * to the BullMQ dispatcher of `messaging-webhooks/redis` (ElastiCache) with a worker elsewhere:
 * docs/receiver.md, "AWS Lambda".
 *
 * An event that is none of these (an SQS batch, a scheduled event) has no HTTP answer: the
 * handler rejects with a TypeError, which Lambda reports as the invocation's error.
 *
 * @example
 * import { createLambdaHandler } from 'messaging-webhooks/lambda';
 * export const handler = createLambdaHandler({ basePath: '/webhooks', onChatbot: async (event) => reply(event) });
 */
export function createLambdaHandler(options: LambdaHandlerOptions): LambdaWebhookHandler {
  if (options.basePath !== undefined && typeof options.basePath !== 'string') {
    throw new TypeError(`basePath: expected a string, got ${typeof options.basePath}`);
  }
  if (options.awaitCallbacks !== undefined && typeof options.awaitCallbacks !== 'boolean') {
    throw new TypeError(`awaitCallbacks: expected a boolean, got ${typeof options.awaitCallbacks}`);
  }
  const receiver = receiverOf(options, 'createLambdaHandler', ['basePath', 'awaitCallbacks']);
  const basePath = normaliseBasePath(options.basePath);
  // A dispatcher given as an object runs the events elsewhere: nothing here to wait for.
  const follower =
    options.awaitCallbacks !== false && typeof options.dispatcher !== 'object'
      ? new Follower(receiver.pipeline)
      : undefined;

  function webhookLambdaHandler(event: LambdaHttpEvent, _context?: unknown): Promise<LambdaHttpResult> {
    const integration = typeof event === 'object' && event !== null ? integrationOf(event) : undefined;
    if (integration === undefined) {
      return Promise.reject(
        new TypeError(
          'createLambdaHandler: the event is not an API Gateway (HTTP or REST API), function URL or ALB request',
        ),
      );
    }
    const multiValue = integration === 'alb' && (event as LambdaHttpEventV1).multiValueHeaders != null;
    const method =
      integration === 'v2'
        ? (event as LambdaHttpEventV2).requestContext.http.method
        : (event as LambdaHttpEventV1).httpMethod;
    return new Promise((resolve) => {
      const answer = (value: HttpAnswer) => resolve(resultOf(value, integration, multiValue));
      const url = belowBasePath(targetOf(event, integration), basePath);
      // Outside the base path: not this receiver's, answered as the node and fetch handlers do.
      if (url === undefined) answer(NOT_FOUND);
      else serve(receiver, new LambdaExchange(event, url, method, answer, follower));
    });
  }
  return Object.assign(webhookLambdaHandler, controlsOf(receiver.pipeline));
}
