// A Worker receiving webhooks with the fetch handler, callbacks in the invocation: the handler
// hands the runtime's waitUntil the promise of the callbacks an event queued. The counter around
// ctx.waitUntil is the test's: it shows the handler used it.
import { createFetchHandler } from 'messaging-webhooks';

const seen = [];
let waitedOn = 0;

const handler = createFetchHandler({
  token: 'secret',
  basePath: '/webhooks',
  onIncoming: async (message) => {
    await scheduler.wait(1);
    seen.push(message.text);
  },
});

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/seen') return Response.json({ seen, waitedOn });
    return handler(request, {
      waitUntil(promise) {
        waitedOn += 1;
        ctx.waitUntil(promise);
      },
    });
  },
};
