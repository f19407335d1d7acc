/**
 * messaging-webhooks/adapter: the seam every built-in adapter (Express, node:http, fetch, Fastify,
 * Hono, Lambda) is written against, for serving the webhooks from a framework the package does
 * not ship. An adapter describes each request as an {@link Exchange} and hands it to
 * {@link serve}; the pipeline does the rest the same way for every framework: head checks before
 * the body, Content-Encoding, the body limit and deadline, capture, deduplication, the answer and
 * every failure path (a bug answers 500, never a stack trace).
 *
 * An adapter is a few functions:
 * 1. {@link receiverOf} once, with the app's options and the adapter's own option keys;
 * 2. per request, an {@link Exchange} over the framework's request and response, given to
 *    {@link serve} (with the path below the mount point: {@link belowBasePath});
 * 3. {@link controlsOf} for `close()`, `stats()`, `idle()`, `health()`, as every receiver has.
 *
 * docs/receiver.md ("Writing an adapter") builds one for Koa.
 *
 * @example
 * const receiver = receiverOf(options, 'myWebhooks', ['basePath']);
 * const handler = (req, res) => serve(receiver, new MyExchange(req, res));
 * return Object.assign(handler, controlsOf(receiver.pipeline));
 *
 * @packageDocumentation
 */
export {
  NO_BODY,
  firstHeader,
  receiverOf,
  serve,
  type CaptureSettings,
  type Exchange,
  type HeaderEntries,
  type Receiver,
} from '../receiver/core.js';
export { controlsOf } from '../receiver/controls.js';
export { collectBody } from '../receiver/body.js';
export { belowBasePath, normaliseBasePath } from '../pipeline/route.js';
