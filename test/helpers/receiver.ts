import express from 'express';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import {
  createWebhookRouter,
  type WebhookRouter,
  type WebhookRouterOptions,
} from '../../src/receiver/index.js';
import type { WebhookContext } from '../../src/dispatch/index.js';
import type { WebhookType } from '../../src/schemas/index.js';

/** One callback invocation seen by a test receiver. */
export interface Call {
  readonly type: WebhookType;
  readonly payload: unknown;
  readonly ctx: WebhookContext;
}

/**
 * An Express app with the router mounted at /webhooks and every callback recording its calls.
 * Options override the recording callbacks.
 */
export function createTestReceiver(options: Partial<WebhookRouterOptions> = {}): {
  app: express.Express;
  router: WebhookRouter;
  calls: Call[];
} {
  const calls: Call[] = [];
  const record =
    (type: WebhookType) =>
    (payload: unknown, ctx: WebhookContext): void => {
      calls.push({ type, payload, ctx });
    };
  const router = createWebhookRouter({
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
    ...options,
  });
  const app = express();
  app.use('/webhooks', router);
  return { app, router, calls };
}

/** A pino logger whose JSON lines are collected in `lines`. */
export function captureLogger(level = 'debug'): {
  logger: Logger;
  lines: Record<string, unknown>[];
  text: () => string;
} {
  const lines: Record<string, unknown>[] = [];
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines, text: () => chunks.join('') };
}

/** A promise with its resolve and reject exposed. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
