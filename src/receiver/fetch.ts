import { NotFoundError, toErrorResponse } from '../errors.js';
import { belowBasePath, normaliseBasePath, type WebhookPipelineOptions } from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { INTERNAL_ERROR, receiverOf } from './core.js';
import {
  checkWaitUntil,
  pathAndQuery,
  respond,
  webServing,
  type FetchHandlerContext,
  type WaitUntil,
} from './web.js';

export type { FetchHandlerContext } from './web.js';

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions extends WebhookPipelineOptions {
  /** Path prefix the endpoints live under, e.g. `/webhooks`. @default '' */
  readonly basePath?: string | undefined;
  /**
   * Called once per acknowledged request that queued callbacks in this process, with a promise
   * that settles (never rejects) when those callbacks have finished: succeeded, or failed on
   * their last attempt (retries included). Give the platform's `waitUntil` so that a runtime
   * which may freeze after the response keeps running them. A `context` passed to the handler
   * (Workers' per-request `ctx`) takes precedence. Not called for duplicates, errors, types
   * without a callback, or a dispatcher given as an object (BullMQ: the event is stored before
   * the 200, its workers run elsewhere). @default undefined
   */
  readonly waitUntil?: WaitUntil | undefined;
}

/**
 * A web-standard request handler (`Request` → `Response`) serving the webhook endpoints, with
 * its controls. The optional second argument is the platform's per-request context: anything with
 * a `waitUntil` method (see {@link FetchHandlerOptions.waitUntil}).
 */
export type FetchWebhookHandler = ((request: Request, context?: FetchHandlerContext) => Promise<Response>) &
  WebhookReceiverControls;

const NOT_FOUND = toErrorResponse(new NotFoundError());

/**
 * Creates a web-standard handler (`Request` → `Promise<Response>`) over the same pipeline as the
 * Express router: same options, answers, error bodies, stats, close and idle. It uses only web
 * APIs on the request path (`Headers`, the body stream, `TextDecoder`), so it runs in Hono,
 * Next.js route handlers, `Bun.serve`, `Deno.serve` and Cloudflare Workers (with the
 * `nodejs_compat` flag: the pipeline uses `node:crypto` and `node:timers`).
 *
 * Callbacks run on the in-memory queue after the answer. Where the runtime may freeze or end the
 * invocation once the response is sent (serverless), pass its `waitUntil` (as an option, or the
 * per-request `ctx` as the second argument) so queued callbacks keep it alive; without one,
 * callbacks not finished by then may never run. For durability use the BullMQ dispatcher of
 * `messaging-webhooks/redis`.
 *
 * @example
 * const handler = createFetchHandler({ basePath: '/webhooks', onChatbot: async (event) => reply(event) });
 * app.all('/webhooks/*', (c) => handler(c.req.raw)); // Hono
 * export default { fetch: (request, env, ctx) => handler(request, ctx) }; // Cloudflare Workers
 */
export function createFetchHandler(options: FetchHandlerOptions): FetchWebhookHandler {
  if (options.basePath !== undefined && typeof options.basePath !== 'string') {
    throw new TypeError(`basePath: expected a string, got ${typeof options.basePath}`);
  }
  checkWaitUntil(options.waitUntil);
  const receiver = receiverOf(options, 'createFetchHandler', ['basePath', 'waitUntil']);
  const basePath = normaliseBasePath(options.basePath);
  const serveWeb = webServing(receiver, options.waitUntil, typeof options.dispatcher !== 'object');

  function webhookFetchHandler(request: Request, context?: FetchHandlerContext): Promise<Response> {
    let url: string | undefined;
    try {
      url = belowBasePath(pathAndQuery(request.url), basePath);
    } catch (error) {
      receiver.pipeline.logger.error({ err: error }, 'webhook request failed');
      return Promise.resolve(respond(INTERNAL_ERROR));
    }
    if (url === undefined) return Promise.resolve(respond(NOT_FOUND));
    return serveWeb(request, url, context);
  }
  return Object.assign(webhookFetchHandler, controlsOf(receiver.pipeline));
}
