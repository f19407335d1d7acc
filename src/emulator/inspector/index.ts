import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError, NotFoundError, emulatorErrorResponse } from '../errors.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import { toWebhookConfigRow, webhookConfigPath } from '../routes/webhook-config.js';
import type { Emulator } from '../types.js';
import { SCRIPT, STYLE } from './assets.js';
import { serialiseRecord } from '../../capture/jsonl.js';
import { maskUrl } from '../../util/secrets.js';
import { WEBHOOK_PATHS } from '../../schemas/index.js';
import { conversationPart, logPart, page, stateParts } from './html.js';
import { conversationOf, inspectorView, logQuerySchema, type LogQuery } from './model.js';

export { inspectorView } from './model.js';

/** A percent-decoded path segment, or undefined when it is malformed. */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Where the inspector's own paths live (the page itself is `GET /` and `GET /_emulator`). */
const INSPECTOR_PREFIX = '/_emulator/inspector';

/** The inspector web page of an emulator, as node-style middleware. */
export interface Inspector {
  /**
   * Serves `GET /` and `GET /_emulator` as HTML to a browser (`Accept: text/html`) and the
   * inspector's assets, fragments, view model and event stream under {@link INSPECTOR_PREFIX};
   * calls `next()` for everything else (the JSON answers of `/` and `/_emulator` included).
   */
  handle(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Ends the open event streams (so the server can close). */
  close(): void;
}

/** What the inspector needs of the emulator. */
export type InspectedEmulator = Pick<Emulator, 'state' | 'clock' | 'deliveries' | 'subscribeDeliveries'> & {
  /** The API prefixes (the configuration form calls the configuration API). @default no messaging prefix */
  readonly prefixes?: Pick<Emulator['prefixes'], 'messaging'>;
  /** True for a seed user's seeded key: the only keys the page lists. @default every key */
  readonly isSeedKey?: (userId: string, apiKey: string) => boolean;
};

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/** A browser asking for the page: `Accept` prefers HTML to JSON (Express's negotiation, q-values included). */
function wantsHtml(req: IncomingMessage): boolean {
  // The inspector runs inside the emulator's Express app, whose requests negotiate.
  const { accepts } = req as IncomingMessage & { accepts?: (types: string[]) => string | false };
  return accepts?.call(req, ['json', 'html']) === 'html';
}

/** Creates the inspector of `emulator`. */
export function createInspector(emulator: InspectedEmulator): Inspector {
  const streams = new Set<ServerResponse>();
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  let closed = false;

  // one event per 200 ms at most: a load test must not flood the page with re-renders
  const changed = (entry: DeliveryLogEntry | null): void => {
    last = entry?.sequence ?? last;
    if (streams.size === 0) return;
    timer ??= setTimeout(() => {
      timer = undefined;
      for (const res of streams) res.write(`data: ${last}\n\n`);
    }, 200).unref();
  };
  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    // Closing: 204 tells an EventSource to stop reconnecting, so the server can finish closing.
    if (closed) return void res.writeHead(204).end();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    streams.add(res);
    unsubscribe ??= emulator.subscribeDeliveries(changed);
    req.once('close', () => {
      streams.delete(res);
      if (streams.size > 0) return;
      unsubscribe?.();
      unsubscribe = undefined;
    });
  };
  const conversation = (query: LogQuery) =>
    query.conversation === undefined
      ? undefined
      : conversationOf(emulator.state, emulator.deliveries(), query.conversation);
  const logQuery = (params: URLSearchParams): LogQuery => {
    const parsed = logQuerySchema.safeParse(Object.fromEntries(params));
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'query');
    throw new BadRequestError(`${field}: ${issue?.message ?? 'invalid'}`, { field });
  };
  const send = (
    res: ServerResponse,
    type: string,
    body: string,
    extra: Record<string, string> = {},
  ): void => {
    res
      .writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra })
      .end(body);
  };
  const html = (res: ServerResponse, body: string): void =>
    send(res, 'text/html; charset=utf-8', body, {
      'content-security-policy': CSP,
      'cache-control': 'no-store',
    });
  const json = (res: ServerResponse, body: unknown): void =>
    send(res, 'application/json; charset=utf-8', JSON.stringify(body));

  function route(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // any call that may change the state (API or control surface) refreshes open pages
      if (streams.size > 0) res.once('finish', () => changed(null));
      return next();
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      return next(); // the emulator answers a malformed target
    }
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/' || path === '/_emulator') {
      if (!wantsHtml(req)) return next();
      const query = logQuery(url.searchParams);
      const view = inspectorView(emulator, query);
      const api = webhookConfigPath(emulator.prefixes?.messaging ?? '');
      return html(
        res,
        page(
          view,
          emulator.deliveries(),
          query,
          `http://${req.headers.host ?? ''}`,
          api,
          conversation(query),
        ),
      );
    }
    if (!path.startsWith(`${INSPECTOR_PREFIX}/`)) return next();
    const rest = path.slice(INSPECTOR_PREFIX.length + 1);
    if (rest === 'app.js') return send(res, 'text/javascript; charset=utf-8', SCRIPT);
    if (rest === 'app.css') return send(res, 'text/css; charset=utf-8', STYLE);
    if (rest === 'events') return stream(req, res);
    if (rest === 'view') return json(res, inspectorView(emulator, logQuery(url.searchParams)));
    if (rest === 'state') {
      const query = logQuery(url.searchParams);
      const parts = Object.values(stateParts(inspectorView(emulator, query), query));
      parts.push(conversationPart(conversation(query), query.conversation));
      return html(res, parts.join('\n'));
    }
    if (rest.startsWith('configs/')) {
      // the configuration as stored, tokens included: what the form's Edit fills in (an explicit request)
      const id = safeDecode(rest.slice('configs/'.length));
      const config = id === undefined ? undefined : emulator.state.webhookConfigs.get(id);
      if (config === undefined)
        throw new NotFoundError(`No webhook configuration ${rest.slice('configs/'.length)}`);
      return json(res, toWebhookConfigRow(config));
    }
    if (rest === 'log') return html(res, logPart(emulator.deliveries(), logQuery(url.searchParams)));
    if (rest.startsWith('deliveries/')) {
      const [given = '', action] = rest.slice('deliveries/'.length).split('/');
      const id = safeDecode(given);
      const entry = id === undefined ? undefined : emulator.deliveries().find((e) => e.id === id);
      if (entry === undefined || (action !== undefined && action !== 'fixture')) {
        throw new NotFoundError(`No delivery ${given}`);
      }
      if (action === 'fixture') {
        // the delivery as a capture record: what the receiver would have captured, without its URL
        const line = serialiseRecord({
          receivedAt: new Date(entry.emittedAt).toISOString(),
          path: `/${WEBHOOK_PATHS[entry.type]}`,
          type: entry.type,
          headers: { 'content-type': 'application/json', 'user-agent': 'messaging-webhooks-emulator' },
          body: JSON.stringify(entry.payload),
        });
        return send(res, 'application/x-ndjson; charset=utf-8', `${line}\n`, {
          'content-disposition': `attachment; filename="delivery-${entry.sequence}.jsonl"`,
          'cache-control': 'no-store',
        });
      }
      const reveal = url.searchParams.get('reveal') === '1';
      return json(res, reveal ? entry : { ...entry, url: maskUrl(entry.url) });
    }
    next();
  }

  return {
    handle(req, res, next) {
      try {
        route(req, res, next);
      } catch (error) {
        const { status, body } = emulatorErrorResponse(error, new Date(emulator.clock.now()));
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(text);
      }
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      for (const res of streams) res.end();
      streams.clear();
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
