/**
 * A third-party adapter: the webhooks served from Koa, which the package does not ship, written
 * against `messaging-webhooks/adapter` as the built-in adapters are. The block between the
 * markers is docs/receiver.md's "Writing an adapter" example, verbatim (examples/koa-adapter.test.ts
 * checks it and sends real requests through it).
 *
 * Run (with a TypeScript runner): WEBHOOK_TOKEN=change-me PORT=3000 npx tsx examples/koa-adapter.ts
 */
import Koa from 'koa';
import { pathToFileURL } from 'node:url';
// docs/receiver.md "Writing an adapter": begin
import type { Context, Middleware } from 'koa';
import type {
  HttpAnswer,
  RequestBody,
  WebhookError,
  WebhookPipelineOptions,
  WebhookReceiverControls,
} from 'messaging-webhooks';
import {
  belowBasePath,
  collectBody,
  controlsOf,
  firstHeader,
  normaliseBasePath,
  receiverOf,
  serve,
  type Exchange,
  type HeaderEntries,
} from 'messaging-webhooks/adapter';

/** One Koa request as the seam sees it: Koa writes `ctx.body` once the middleware resolves. */
class KoaExchange implements Exchange {
  readonly method: string;
  private sent = false;

  constructor(
    private readonly ctx: Context,
    readonly url: string,
    private readonly answered: () => void,
  ) {
    this.method = ctx.method;
  }

  header(name: string): string | undefined {
    return firstHeader(this.ctx.req.headers, name);
  }

  contentEncoding(): string | undefined {
    return this.ctx.req.headers['content-encoding'];
  }

  discard(): void {
    this.ctx.req.resume();
  }

  readBody(
    limit: number,
    timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
  ): void {
    collectBody(this.ctx.req, limit, (error, raw) => done(error, { raw }), timeoutMs);
  }

  headerEntries(): HeaderEntries {
    return Object.entries(this.ctx.req.headers);
  }

  send(answer: HttpAnswer): void {
    if (this.sent) return;
    this.sent = true;
    this.ctx.status = answer.status;
    this.ctx.set(answer.headers);
    this.ctx.body = answer.body;
    this.answered();
  }
}

export interface KoaWebhooksOptions extends WebhookPipelineOptions {
  /** Path prefix the endpoints live under, e.g. `/webhooks`. */
  readonly basePath?: string | undefined;
}

/** Koa middleware serving the webhook endpoints under `basePath`; other paths go on to `next`. */
export function koaWebhooks(options: KoaWebhooksOptions): Middleware & WebhookReceiverControls {
  const receiver = receiverOf(options, 'koaWebhooks', ['basePath']);
  const basePath = normaliseBasePath(options.basePath);
  const middleware: Middleware = (ctx, next) => {
    const url = belowBasePath(ctx.url, basePath);
    if (url === undefined) return next();
    return new Promise<void>((resolve) => serve(receiver, new KoaExchange(ctx, url, resolve)));
  };
  return Object.assign(middleware, controlsOf(receiver.pipeline));
}
// docs/receiver.md "Writing an adapter": end

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const webhooks = koaWebhooks({
    basePath: '/webhooks',
    token: process.env.WEBHOOK_TOKEN,
    onIncoming: async (message, ctx) => {
      ctx.logger.info({ contentType: message.messageContentType }, 'incoming message');
    },
  });
  const app = new Koa();
  app.use(webhooks);
  const server = app.listen(Number(process.env.PORT ?? 3000));
  process.on('SIGTERM', () => {
    server.close();
    void webhooks.close(10_000);
  });
}
