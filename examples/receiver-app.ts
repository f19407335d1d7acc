/**
 * A minimal receiver app: the library's Express router on port 3000 (PORT), mounted at
 * /webhooks, checking the token in WEBHOOK_TOKEN, printing each callback. Pair it with the
 * standalone emulator and the trigger command:
 *
 *   WEBHOOK_TOKEN=s3cret npx tsx examples/receiver-app.ts
 *   npx messaging-webhooks emulator --forward-to http://localhost:3000/webhooks --token s3cret
 *   npx messaging-webhooks trigger customer-message --from +27831234567 --text 'Where is my order?'
 *
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * point them at src/.
 */
import express from 'express';
import { createWebhookRouter } from 'messaging-webhooks';

const port = Number(process.env.PORT ?? 3000);
const webhooks = createWebhookRouter({
  token: process.env.WEBHOOK_TOKEN,
  onIncoming: (message) => {
    console.log(
      `incoming  ${String(message.messageContentType)} from ${message.sender}: ${message.text ?? ''}`,
    );
  },
  onStatus: (status) => console.log(`status    ${status.gstId} ${String(status.status)}`),
  onSession: (session) => console.log(`session   ${session.messagingNumber} ${session.statusType}`),
  onEvent: (event) => console.log(`event     ${String(event.eventType)}`),
  onChatbot: (event) =>
    console.log(
      `chatbot   ${String(event.direction)} ${String(event.messageType)}: ${event.messageText ?? ''}`,
    ),
});

const app = express();
app.use('/webhooks', webhooks);
const server = app.listen(port, () => console.log(`Receiver listening on http://localhost:${port}/webhooks`));
process.on('SIGTERM', () => {
  server.close();
  void webhooks.close(5_000);
});
