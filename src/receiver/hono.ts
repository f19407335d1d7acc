import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
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
 * Where the app is mounted, by `app.route()`, read from the pattern of the route that matched
 * (`/webhooks/*`, or `/webhooks` for the mount point itself): '' at the root. A mount path with
 * parameters (`/:tenant/webhooks`) is as many segments of the request's path. The pattern is read
 * from the request (`c.req.routePath`, which Hono 4 marks deprecated), not with `hono/route`'s
 * helpers: those read a symbol of their own copy of Hono, which is not the app's when a CommonJS
 * app requires Hono and this ESM package imports it (its ESM build).
 */
function mountOf(c: Context, mounts: Map<string, Mount>): string {
  const pattern = c.req.routePath;
  let mount = mounts.get(pattern);
  if (mount === undefined) {
    const base = pattern.replace(/\/?\*$/, '').replace(/\/$/, '');
    mount = /[:*]/.test(base) ? { segments: base.split('/').length - 1 } : { fixed: base };
    mounts.set(pattern, mount);
  }
  if (mount.fixed !== undefined) return mount.fixed;
  const path = c.req.path;
  let end = 0;
  for (let i = 0; i < mount.segments; i += 1) {
    end = path.indexOf('/', end + 1);
    if (end === -1) return path;
  }
  return path.slice(0, end);
}

/** A mount path, by the route pattern that matched: fixed, or so many segments of the request's path. */
type Mount = { readonly fixed: string } | { readonly fixed?: undefined; readonly segments: number };

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

  // The mount of each route pattern that matched.
  const mounts = new Map<string, Mount>();

  function webhooks(c: Context): Response | Promise<Response> {
    const mount = mountOf(c, mounts);
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
