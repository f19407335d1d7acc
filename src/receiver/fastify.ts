import { METHODS } from 'node:http';
import type { Readable } from 'node:stream';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import fastifyPlugin from 'fastify-plugin';
import type { HttpAnswer, WebhookError } from '../errors.js';
import type { RequestBody, WebhookPipelineOptions } from '../pipeline/index.js';
import { ACK_ANSWER, DUPLICATE_ANSWER } from '../pipeline/answers.js';
import { collectBody } from './body.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import {
  firstHeader,
  NO_BODY,
  receiverOf,
  serve,
  type Exchange,
  type HeaderEntries,
  type Receiver,
} from './core.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook receiver's controls: `stats()`, `idle()`, `close()` (messaging-webhooks/fastify). */
    webhooks: WebhookReceiverControls;
  }
}

/** Options of {@link webhooksPlugin}: the pipeline's, plus Fastify's `prefix`. */
export interface FastifyWebhooksOptions extends Omit<WebhookPipelineOptions, 'logger'> {
  /**
   * A pino logger, or the app's own `app.log` (Fastify's logger is pino's `BaseLogger` shape).
   * @default the app's logger (`fastify.log`): silent unless the app enables logging
   */
  readonly logger?: FastifyBaseLogger | Logger | undefined;
  /** Where the endpoints live, e.g. `/webhooks` (Fastify's own register option). @default '' */
  readonly prefix?: string | undefined;
  /**
   * How long Fastify's `close()` waits for queued callbacks (the plugin's `onClose` hook calls
   * `webhooks.close(closeTimeoutMs)`). @default 10_000
   */
  readonly closeTimeoutMs?: number | undefined;
}

/** Default wait for queued callbacks when Fastify closes, in milliseconds. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** The content type of every answer (errors.ts jsonAnswer). */
const JSON_CONTENT_TYPE = ACK_ANSWER.headers['content-type']!;

/**
 * A Fastify request and its reply as the seam's {@link Exchange}. `stream` is the body the routes'
 * content-type parser handed over unread; none when the request has no body.
 */
class FastifyExchange implements Exchange {
  readonly method: string;
  /**
   * Set by `send`. Not `reply.sent`: that stays false until the response has ended, which an async
   * onSend hook of the app puts off past the request's turn.
   */
  answered = false;
  private readonly stream: Readable | undefined;
  /**
   * `request.headers`, read once: a getter that merges the headers an app's hook added
   * (`request.headers = ...`), which run before the route's handler.
   */
  private readonly headers: FastifyRequest['headers'];
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    readonly url: string,
  ) {
    this.method = request.method;
    this.stream = request.body as Readable | undefined;
    this.headers = request.headers;
  }

  header(name: string): string | undefined {
    return firstHeader(this.headers, name);
  }

  contentEncoding(): string | undefined {
    return this.headers['content-encoding'];
  }

  discard(): void {
    (this.stream ?? this.request.raw).resume();
  }

  readBody(
    limit: number,
    timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
  ): void {
    if (this.stream === undefined) done(undefined, NO_BODY);
    else collectBody(this.stream, limit, (error, raw) => done(error, { raw }), timeoutMs);
  }

  headerEntries(): HeaderEntries {
    return Object.entries(this.request.raw.headers);
  }

  send(answer: HttpAnswer): void {
    if (this.answered || this.reply.sent) return;
    this.answered = true;
    const reply = this.reply.code(answer.status);
    // The acknowledgements carry only their content type and length: the type is set directly
    // (reply.headers() lower-cases every name), and Fastify computes the length of the body it
    // sends. Any other answer's headers are set as they are.
    if (answer === ACK_ANSWER || answer === DUPLICATE_ANSWER) reply.type(JSON_CONTENT_TYPE);
    else reply.headers(answer.headers);
    void reply.send(answer.body);
  }
}

/**
 * The routes, in a scope of their own: its content-type parser hands every body over unread, so
 * the pipeline reads it itself (limit enforced while reading, 413 past it, raw text kept for
 * validation and capture) and answers 415 itself. Registered without fastify-plugin, so the
 * parser stays in this scope and the rest of the app keeps Fastify's JSON parser.
 */
function routesOf(receiver: Receiver) {
  return function webhookRoutes(scope: FastifyInstance, _options: unknown, done: () => void): void {
    scope.removeAllContentTypeParsers();
    const unread = (
      _request: FastifyRequest,
      payload: Readable,
      done: (error: null, body: Readable) => void,
    ) => done(null, payload);
    // Named as well as caught by '*': Fastify caches the parser of a named type per Content-Type
    // value, but looks the catch-all up anew on every request.
    scope.addContentTypeParser('application/json', unread);
    scope.addContentTypeParser('*', unread);
    // Fastify matched the prefix; the pipeline reads the path below it (`/chatbot`, `/<token>/status`).
    const prefixLength = scope.prefix.length;

    /** Serves one request; the exchange tells whether it was answered. */
    function run(request: FastifyRequest, reply: FastifyReply): FastifyExchange {
      const exchange = new FastifyExchange(request, reply, request.url.slice(prefixLength));
      serve(receiver, exchange);
      return exchange;
    }

    // Returns nothing: Fastify would send a handler's return value.
    function webhookRoute(request: FastifyRequest, reply: FastifyReply): void {
      run(request, reply);
    }

    /**
     * Every method but POST is refused by the head checks (404 or 405, before any body), so it is
     * answered in onRequest: before Fastify's own checks of other methods' bodies (a QUERY without
     * a Content-Type is Fastify's 400, an unparsable Content-Type its 415), so that every method
     * gets the same answer as on the other adapters. POST's route has no hook.
     */
    function refuseEarly(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      if (!run(request, reply).answered) done();
    }

    const others = scope.supportedMethods.filter((method) => method !== 'POST');
    for (const url of ['/', '/*']) {
      scope.route({ method: 'POST', url, handler: webhookRoute });
      scope.route({ method: others, url, onRequest: refuseEarly, handler: webhookRoute });
    }
    done();
  };
}

/**
 * Makes every method Node's HTTP parser accepts routable in the app, so that the plugin's routes
 * receive PROPFIND, LOCK, MKCOL, PURGE, SEARCH... and answer them 405 (counted in stats and
 * metrics) as the other adapters do. Fastify routes only the methods it supports and answers the
 * others with its default 404, whose message quotes the path, token segment included. A method
 * the app already added keeps its own `hasBody` setting.
 */
function supportEveryMethod(fastify: FastifyInstance): void {
  const supported = new Set(fastify.supportedMethods);
  // CONNECT never reaches a request handler in Node (its 'connect' event takes the socket).
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !supported.has(method)) fastify.addHttpMethod(method, { hasBody: true });
  }
}

/**
 * The app's logger when it is a pino logger; undefined (the library's silent default) for an app
 * without logging, whose `fastify.log` is a no-op object without pino's `level` or `child` options.
 */
function appLogger(fastify: FastifyInstance): FastifyBaseLogger | undefined {
  const log = fastify.log as Partial<Logger>;
  return typeof log.level === 'string' && typeof log.isLevelEnabled === 'function' ? fastify.log : undefined;
}

/** The plugin's own options, beside the pipeline's (Fastify's register options among them). */
const OWN_KEYS = ['prefix', 'closeTimeoutMs', 'logLevel', 'logSerializers'];

const webhooks: FastifyPluginAsync<FastifyWebhooksOptions> = async (fastify, options) => {
  const { prefix = '', closeTimeoutMs = DEFAULT_CLOSE_TIMEOUT_MS, logger = appLogger(fastify) } = options;
  if (!Number.isInteger(closeTimeoutMs) || closeTimeoutMs < 1) {
    throw new TypeError(`closeTimeoutMs: expected a positive integer, got ${String(closeTimeoutMs)}`);
  }
  // Fastify's logger is pino (or has pino's BaseLogger shape, checked at construction): the
  // pipeline takes a child of it.
  const receiver = receiverOf(
    { ...options, logger: logger as Logger | undefined },
    'webhooksPlugin',
    OWN_KEYS,
  );
  const { pipeline } = receiver;
  supportEveryMethod(fastify);
  const controls = controlsOf(pipeline);
  // On the app (fastify-plugin lifts this plugin's encapsulation): app.webhooks.stats().
  fastify.decorate('webhooks', controls);
  // Fastify closes the server first (no new requests), then runs onClose: the queue drains here.
  fastify.addHook('onClose', async () => {
    const drained = await controls.close(closeTimeoutMs);
    if (!drained) pipeline.logger.warn({ closeTimeoutMs }, 'webhook callbacks still queued at close');
  });
  await fastify.register(routesOf(receiver), { prefix });
};

/**
 * The Fastify plugin of the webhook receiver: POST `{prefix}/incoming`, `/status`, `/session`,
 * `/events`, `/chatbot` and `{prefix}/` (type detected from the payload), over the same pipeline
 * as the Express router (same options, answers and error bodies). The body is read raw by the
 * plugin's own content-type parser, for its routes only. Decorates the app with `webhooks`
 * (`stats()`, `idle()`, `close()`); Fastify's `close()` waits up to `closeTimeoutMs` for queued
 * callbacks. Register it once per app.
 *
 * @example
 * import Fastify from 'fastify';
 * import { webhooksPlugin } from 'messaging-webhooks/fastify';
 * const app = Fastify({ logger: true });
 * await app.register(webhooksPlugin, { prefix: '/webhooks', token: process.env.WEBHOOK_TOKEN, onChatbot });
 * await app.listen({ port: 3000 });
 * process.on('SIGTERM', () => void app.close());
 */
export const webhooksPlugin = fastifyPlugin(webhooks, {
  fastify: '5.x',
  name: 'messaging-webhooks',
});

export default webhooksPlugin;
