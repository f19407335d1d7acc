import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import { basePath as honoBasePath, baseRoutePath } from 'hono/route';
import type { HttpAnswer } from '../errors.js';
import { belowBasePath, type WebhookPipelineOptions } from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { receiverOf, serve } from './core.js';
import { NodeExchange } from './handle.js';
import { checkWaitUntil, pathAndQuery, webServing, type FetchHandlerContext, type WaitUntil } from './web.js';

/** Options of {@link createHonoWebhooks}: the pipeline's, and a fallback `waitUntil`. */
export interface HonoWebhooksOptions extends WebhookPipelineOptions {
  /**
   * Keeps a runtime that may freeze after the response alive while the callbacks a request queued
   * run (see `FetchHandlerOptions.waitUntil`). Hono's `c.executionCtx` (Cloudflare Workers) takes
   * precedence when the runtime gives one; on `@hono/node-server` nothing is kept (a long-lived
   * process runs its queue). @default undefined
   */
  readonly waitUntil?: WaitUntil | undefined;
}

/**
 * The webhook endpoints as a Hono app, to mount with `app.route()`, with the receiver's controls
 * (`stats()`, `idle()`, `close()`, `health()`, `pipeline`).
 */
export type HonoWebhooks = Hono & WebhookReceiverControls;

/** What `@hono/node-server` hands an app as `c.env`: the node request and response. */
interface NodeBindings {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
}

/** The node request and response when the app runs on `@hono/node-server`, else undefined. */
function nodeBindingsOf(env: unknown): NodeBindings | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const { incoming, outgoing } = env as Partial<Record<'incoming' | 'outgoing', { [key: string]: unknown }>>;
  return typeof outgoing?.writeHead === 'function' && typeof incoming?.resume === 'function'
    ? (env as NodeBindings)
    : undefined;
}

/** Hono's `c.executionCtx` (Workers' `ctx`) when the runtime gives one; Hono throws otherwise. */
function executionContextOf(c: Context): FetchHandlerContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** The header by which `@hono/node-server` knows the app wrote the answer itself (its `RESPONSE_ALREADY_SENT`). */
const ALREADY_SENT_HEADER = 'x-hono-already-sent';

let alreadySent: Response | undefined;
/**
 * The answer that tells `@hono/node-server` the response is written: a bodiless Response with its
 * already-sent header, as its `RESPONSE_ALREADY_SENT` (not imported, so that the adapter runs on
 * Workers, Bun and Deno without `@hono/node-server` installed). Made from the runtime's own Response
 * class (`Response.error().constructor`): once it serves, `@hono/node-server` replaces the global
 * `Response` with its own lighter class, whose instances it writes out as they are, which would be
 * an empty 200 for this one. Made once, on first use; shared, as `RESPONSE_ALREADY_SENT` is.
 */
function alreadySentResponse(): Response {
  if (alreadySent === undefined) {
    const NativeResponse = Response.error().constructor as typeof Response;
    alreadySent = new NativeResponse(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } });
  }
  return alreadySent;
}

/** A node request served inside Hono: answered on the node response, then Hono is told so. */
class HonoNodeExchange extends NodeExchange {
  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    private readonly answered: (response: Response) => void,
  ) {
    super(req, res, url);
  }

  override send(answer: HttpAnswer): void {
    super.send(answer);
    this.answered(alreadySentResponse());
  }
}

/**
 * Where the app is mounted, by `app.route()`: the sub-app's base path with its parameters filled
 * in ('' at the root). A base without parameters is the route's own, read without matching.
 */
function mountOf(c: Context): string {
  const base = baseRoutePath(c);
  const mount = base.includes(':') || base.includes('*') ? honoBasePath(c) : base;
  return mount === '/' ? '' : mount;
}

/**
 * The path and query of a request below the mount point: the raw target (`/webhooks/chatbot?x=1`
 * as sent, the path token's encoding kept), or, when the raw target does not start with the mount
 * (a mount path the client percent-encoded, an absolute-form target), Hono's decoded path below it
 * and the raw query.
 */
function belowMount(raw: string, mount: string, c: Context): string {
  const below = belowBasePath(raw, mount);
  if (below !== undefined) return below;
  const query = raw.indexOf('?');
  return (c.req.path.slice(mount.length) || '/') + (query === -1 ? '' : raw.slice(query));
}

/**
 * The Hono adapter: the webhook endpoints (POST `/incoming`, `/status`, `/session`, `/events`,
 * `/chatbot`, and `/` detecting the type) as a Hono app, mounted where the app wants them with
 * `app.route()`, over the same pipeline as every other adapter (same options, answers and error
 * bodies). Every method reaches it, so a GET is a 405 JSON, counted, as elsewhere.
 *
 * On `@hono/node-server` it reads and answers through the node request and response Hono is given
 * (`c.env.incoming` / `c.env.outgoing`), as the node handler does, and tells Hono the answer is
 * written: no `Request` emulation on the path, and middleware after it sees a bodiless 200 rather
 * than the answer. Elsewhere (Workers, Bun, Deno, Vercel, Lambda through `hono/aws-lambda`) it
 * serves `c.req.raw` through the fetch path, with `c.executionCtx.waitUntil` (Workers) or the
 * `waitUntil` option keeping the runtime alive for the request's callbacks.
 *
 * @example
 * import { Hono } from 'hono';
 * import { createHonoWebhooks } from 'messaging-webhooks/hono';
 * const webhooks = createHonoWebhooks({ token: process.env.WEBHOOK_TOKEN, onChatbot });
 * const app = new Hono();
 * app.route('/webhooks', webhooks);
 * process.on('SIGTERM', () => void webhooks.close(10_000));
 */
export function createHonoWebhooks(options: HonoWebhooksOptions): HonoWebhooks {
  checkWaitUntil(options.waitUntil);
  const receiver = receiverOf(options, 'createHonoWebhooks', ['waitUntil']);
  const serveWeb = webServing(receiver, options.waitUntil, typeof options.dispatcher !== 'object');

  function webhooks(c: Context): Response | Promise<Response> {
    const mount = mountOf(c);
    const node = nodeBindingsOf(c.env);
    if (node !== undefined && !node.incoming.readableDidRead) {
      const { incoming, outgoing } = node;
      const url = belowMount(incoming.url ?? '/', mount, c);
      return new Promise((resolve) =>
        serve(receiver, new HonoNodeExchange(incoming, outgoing, url, resolve)),
      );
    }
    const url = belowMount(pathAndQuery(c.req.url), mount, c);
    return serveWeb(c.req.raw, url, executionContextOf(c));
  }

  const app = new Hono();
  app.all('/', webhooks);
  app.all('/*', webhooks);
  return Object.assign(app, controlsOf(receiver.pipeline));
}
