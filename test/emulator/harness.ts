import express from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  createEmulator,
  DEFAULT_API_KEYS,
  type Emulator,
  type EmulatorOptions,
} from '../../src/emulator/index.js';
import {
  createWebhookRouter,
  type WebhookRouter,
  type WebhookRouterOptions,
} from '../../src/receiver/index.js';
import { parseWebhook, WEBHOOK_PATHS, type WebhookType } from '../../src/schemas/index.js';

/** The default seed's numbers and keys, named for tests. */
export const SEED = {
  supervisorKey: DEFAULT_API_KEYS.supervisor,
  agentKey: DEFAULT_API_KEYS.agent,
  otherClientKey: DEFAULT_API_KEYS.otherClient,
  /** Lite number of client demo. */
  lite: {
    msisdn: '+27820000001',
    linkId: '00000000-0000-4000-8000-000000000031',
    id: '00000000-0000-4000-8000-000000000041',
  },
  /** Cloud number of client demo. */
  cloud: {
    msisdn: '+27820000002',
    linkId: '00000000-0000-4000-8000-000000000032',
    id: '00000000-0000-4000-8000-000000000042',
  },
  /** Number of client other. */
  foreign: {
    msisdn: '+27830000001',
    linkId: '00000000-0000-4000-8000-000000000033',
    id: '00000000-0000-4000-8000-000000000043',
  },
  users: {
    supervisor: '00000000-0000-4000-8000-000000000021',
    ada: '00000000-0000-4000-8000-000000000022',
    bob: '00000000-0000-4000-8000-000000000023',
    olga: '00000000-0000-4000-8000-000000000024',
  },
  teams: { sales: '00000000-0000-4000-8000-000000000011', support: '00000000-0000-4000-8000-000000000012' },
} as const;

export const WEBHOOK_API = '/Messaging/MessagingClientWebHook';
/** A fixed emulator start time, so timestamps are predictable. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** One callback invocation seen by the receiver. */
interface ReceivedCall {
  readonly type: WebhookType;
  /** Which receiver URL ("a" or "b") the platform posted to. */
  readonly receiver: string;
  readonly payload: Record<string, unknown>;
}

/**
 * The emulator plus a real receiver (createWebhookRouter in Express) listening on 127.0.0.1
 * port 0. Two receiver mounts, `/a/...` and `/b/...`, let a test tell which configuration an
 * event was routed by.
 */
export interface Harness {
  readonly emulator: Emulator;
  readonly routerA: WebhookRouter;
  readonly routerB: WebhookRouter;
  /** Base URL of the receiver app. */
  readonly receiverUrl: string;
  /** Callback invocations, in order. */
  readonly calls: ReceivedCall[];
  /** URLs of mount `a` or `b`, one per webhook type. */
  urls(
    mount: 'a' | 'b',
  ): Record<
    'incomingMessageURL' | 'statusUpdateURL' | 'sessionStatusURL' | 'eventWebhookURL' | 'chatbotWebhookURL',
    string
  >;
  /** A supertest agent on the emulator's documented API. */
  api(): request.Agent;
  /** Creates a webhook configuration through the API; returns the row. */
  createConfig(body: Record<string, unknown>, key?: string): Promise<Record<string, unknown>>;
  /** Waits until the emulator delivered everything and the receiver ran every callback. */
  settle(): Promise<void>;
  /** Settles, then resets the emulator to its seed and forgets the calls (between tests). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a harness. Retries are off unless the options say otherwise. */
export async function startHarness(
  options: EmulatorOptions = {},
  receiverOptions: Partial<WebhookRouterOptions> = {},
): Promise<Harness> {
  const calls: ReceivedCall[] = [];
  const routerFor = (mount: string): WebhookRouter => {
    const record =
      (type: WebhookType) =>
      (payload: unknown): void => {
        calls.push({ type, receiver: mount, payload: payload as Record<string, unknown> });
      };
    return createWebhookRouter({
      onIncoming: record('incoming'),
      onStatus: record('status'),
      onSession: record('session'),
      onEvent: record('event'),
      onChatbot: record('chatbot'),
      ...receiverOptions,
    });
  };
  // fresh receivers per reset (their dedupe memory must not leak between tests), one server
  let routerA = routerFor('a');
  let routerB = routerFor('b');
  const app = express();
  app.use('/a', (req, res, next) => routerA(req, res, next));
  app.use('/b', (req, res, next) => routerB(req, res, next));
  const server = await listen(app);
  const receiverUrl = urlOf(server);
  const emulator = createEmulator({ retry: { attempts: 1 }, clock: T0, ...options });
  const api = (): request.Agent => request.agent(emulator.listener);
  const settle = async (): Promise<void> => {
    await emulator.idle();
    await Promise.all([routerA.idle(), routerB.idle()]);
  };
  return {
    emulator,
    get routerA() {
      return routerA;
    },
    get routerB() {
      return routerB;
    },
    receiverUrl,
    calls,
    urls(mount) {
      const base = `${receiverUrl}/${mount}`;
      return {
        incomingMessageURL: `${base}/${WEBHOOK_PATHS.incoming}`,
        statusUpdateURL: `${base}/${WEBHOOK_PATHS.status}`,
        sessionStatusURL: `${base}/${WEBHOOK_PATHS.session}`,
        eventWebhookURL: `${base}/${WEBHOOK_PATHS.event}`,
        chatbotWebhookURL: `${base}/${WEBHOOK_PATHS.chatbot}`,
      };
    },
    api,
    async createConfig(body, key = SEED.supervisorKey) {
      const response = await api().post(WEBHOOK_API).set('authorization', key).send(body);
      if (response.status !== 200) {
        throw new Error(`create config failed: ${response.status} ${JSON.stringify(response.body)}`);
      }
      return response.body as Record<string, unknown>;
    },
    settle,
    async reset() {
      await settle();
      emulator.reset();
      calls.length = 0;
      await Promise.all([routerA.close(), routerB.close()]);
      routerA = routerFor('a');
      routerB = routerFor('b');
    },
    async close() {
      await emulator.close();
      await Promise.all([routerA.close(), routerB.close()]);
      await closeServer(server);
    },
  };
}

/**
 * Asserts that every delivery in the emulator's log passed parseWebhook (the emulator checks
 * before sending; this checks again from the outside, with the configured payload version).
 */
export function expectAllDeliveriesValid(emulator: Emulator): void {
  for (const entry of emulator.deliveries()) {
    const parsed = parseWebhook(entry.type, entry.payload);
    expect({ type: entry.type, success: parsed.success }).toEqual({ type: entry.type, success: true });
  }
}

/** A bare node:http server recording requests, answering with `respond` (default 200). */
export interface CaptureServer {
  readonly url: string;
  readonly requests: {
    readonly path: string;
    readonly body: unknown;
    readonly headers: IncomingMessage['headers'];
  }[];
  respond: (path: string, index: number) => number | 'hang';
  close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const hanging = new Set<ServerResponse>();
  const capture: CaptureServer = {
    url: '',
    requests: [],
    respond: () => 200,
    async close() {
      for (const res of hanging) res.destroy();
      await closeServer(server);
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const index = capture.requests.length;
      capture.requests.push({
        path,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        headers: req.headers,
      });
      const answer = capture.respond(path, index);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer).end();
    });
  });
  await listen(server);
  (capture as { url: string }).url = urlOf(server);
  return capture;
}

function listen(app: express.Express | Server): Promise<Server> {
  const server = 'listen' in app && !('use' in app) ? app : createServer(app);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error === undefined ? resolve() : reject(error)));
    server.closeAllConnections();
  });
}
