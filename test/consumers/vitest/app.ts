// The app under test: an Express app whose webhook receiver files each customer message in an
// inbox that the support desk reads at GET /inbox/:customer.
import express from 'express';
import { createWebhookRouter } from 'messaging-webhooks';

export interface AppOptions {
  /** The secret path segment of the webhook URLs: https://you.example/webhooks/<token>/incoming */
  readonly token: string;
}

export function createApp({ token }: AppOptions) {
  const inbox = new Map<string, string[]>();
  const webhooks = createWebhookRouter({
    token,
    onIncoming: async (message) => {
      const texts = inbox.get(message.sender) ?? [];
      texts.push(message.text ?? `[${message.messageContentType}]`);
      inbox.set(message.sender, texts);
    },
  });
  const app = express();
  app.use('/webhooks', webhooks);
  app.get('/inbox/:customer', (req, res) => {
    res.json(inbox.get(req.params.customer) ?? []);
  });
  return { app, webhooks };
}
