// Scenario 4, in its own process (pinned by the orchestrator): the emulator delivering webhooks
// to a receiver in another process. The emulator is configured through its documented API (a
// client-default webhook configuration with incoming and chatbot URLs on the receiver), then
// customer messages are triggered in batches until the time is up; each message makes two
// deliveries (incoming, then chatbot). Deliveries/s counts deliveries that got a 2xx.
import { createEmulator, DEFAULT_API_KEYS } from '../../dist/emulator/index.js';
import { serveCommands } from '../lib/proc.js';

const LITE_NUMBER = '+27820000001';
const BATCH = 50;

async function fanOut({ receiverBase, durationSec }) {
  const emulator = createEmulator({ retry: { attempts: 1 } });
  const base = await emulator.listen();
  try {
    const prefix = emulator.prefixes.messaging;
    const response = await fetch(`${base}${prefix}/Messaging/MessagingClientWebHook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: DEFAULT_API_KEYS.supervisor },
      body: JSON.stringify({
        incomingMessageURL: `${receiverBase}/incoming`,
        chatbotWebhookURL: `${receiverBase}/chatbot`,
      }),
    });
    if (!response.ok)
      throw new Error(`webhook configuration failed: ${response.status} ${await response.text()}`);
    // Warm-up: one batch, not counted.
    for (let i = 0; i < BATCH; i += 1) {
      emulator.customerMessage({
        number: LITE_NUMBER,
        from: `+2783${String(i).padStart(7, '0')}`,
        text: 'hi',
      });
    }
    await emulator.idle();
    emulator.clearDeliveries();
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round(durationSec * 1e9));
    let messages = 0;
    let delivered = 0;
    let failed = 0;
    while (process.hrtime.bigint() < deadline) {
      for (let i = 0; i < BATCH; i += 1, messages += 1) {
        emulator.customerMessage({
          number: LITE_NUMBER,
          from: `+2784${String(messages % 5000).padStart(7, '0')}`,
          text: `Order ${messages}: where is it?`,
        });
      }
      await emulator.idle();
      for (const entry of emulator.deliveries()) {
        if (entry.state === 'delivered') delivered += 1;
        else if (entry.state === 'failed') failed += 1;
      }
      // Keep the log from growing across batches.
      emulator.clearDeliveries();
    }
    const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
    return { messages, delivered, failed, elapsedSec, deliveriesPerSec: delivered / elapsedSec };
  } finally {
    await emulator.close();
  }
}

serveCommands({ fanOut });
process.send({ ready: true });
