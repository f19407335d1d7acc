/**
 * The receiver as a Next.js App Router route handler, in `app/webhooks/[[...path]]/route.ts`:
 * every POST under /webhooks goes to the web-standard fetch handler.
 *
 * On a serverless deployment the function may be frozen once the response is sent, so the
 * callbacks still queued must be kept alive: pass the platform's `waitUntil` (Next.js 15's
 * `after` from 'next/server', or `waitUntil` from '@vercel/functions'). Each acknowledged request
 * hands it a promise that settles when that request's callbacks have run (retries included).
 * Where the platform's limit on that extra time is too short for your callbacks, use the BullMQ
 * dispatcher of 'messaging-webhooks/redis' and run the worker elsewhere.
 *
 * In your app, import from 'messaging-webhooks' instead of '../src/...', and `after` from
 * 'next/server' (declared here so this example compiles without Next.js installed).
 */
import { createFetchHandler } from 'messaging-webhooks';

/** Next.js's `after` (next/server): runs work after the response without the runtime freezing it. */
declare function after(task: Promise<unknown>): void;

const webhooks = createFetchHandler({
  basePath: '/webhooks',
  token: process.env.WEBHOOK_TOKEN,
  waitUntil: (promise) => after(promise),
  onChatbot: async (event, ctx) => {
    ctx.logger.info({ direction: event.direction }, 'chatbot event');
  },
});

/** POST /webhooks, /webhooks/<type>, /webhooks/<token>/<type>. */
export function POST(request: Request): Promise<Response> {
  return webhooks(request);
}

/** Other methods get the receiver's 405 answer, like every adapter. */
export const GET = POST;
