import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundError, toErrorResponse } from '../errors.js';
import { createWebhookPipeline, type WebhookPipelineOptions } from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './express.js';
import { captureSettingsOf, handleRequest, send } from './handle.js';

export interface NodeHandlerOptions extends WebhookPipelineOptions {
  /** Path prefix the endpoints live under, e.g. `/webhooks`. @default '' */
  readonly basePath?: string | undefined;
}

/** Whether `url` ends a path segment at `index`: at its end, a `/` or a `?`. */
function endsSegment(url: string, index: number): boolean {
  const next = url.charCodeAt(index);
  return Number.isNaN(next) || next === SLASH || next === QUESTION_MARK;
}
const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/** A node:http request listener serving the webhook endpoints, with its controls. */
export type NodeWebhookHandler = ((req: IncomingMessage, res: ServerResponse) => void) &
  WebhookReceiverControls;

/**
 * Creates a plain node:http request listener over the same pipeline as the Express router, for
 * apps without Express and for the highest throughput.
 *
 * @example
 * const handler = createNodeHandler({ basePath: '/webhooks', onIncoming: (message) => save(message) });
 * http.createServer(handler).listen(3000);
 */
export function createNodeHandler(options: NodeHandlerOptions): NodeWebhookHandler {
  const pipeline = createWebhookPipeline(options, { factory: 'createNodeHandler', extraKeys: ['basePath'] });
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const capture = captureSettingsOf(options);
  function webhookHandler(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    if (basePath !== '' && !(url.startsWith(basePath) && endsSegment(url, basePath.length))) {
      req.resume();
      send(res, toErrorResponse(new NotFoundError(url.split('?')[0] ?? url)));
      return;
    }
    handleRequest(pipeline, req, res, url.slice(basePath.length) || '/', undefined, capture);
  }
  return Object.assign(webhookHandler, controlsOf(pipeline));
}
