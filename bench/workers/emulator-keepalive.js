// Scenario 7, in its own process (pinned by the orchestrator): the emulator's concurrent
// keep-alive fan-out against a bare keep-alive undici POST loop, same concurrency, same bodies,
// same receiver (in another process). The emulator is configured through its documented API
// (incoming and chatbot URLs on the receiver); customer messages from many customers are
// triggered in batches (each makes two deliveries: incoming and chatbot). The bare loop then
// POSTs the very bodies the emulator delivered, to the same URLs, with `concurrency` workers.
// Ratio = emulator deliveries/s ÷ bare loop POSTs/s. Customers: `customers` distinct ones
// (default 5,000; issue 23 asks for at least 3,000), in rotation from the warm-up on, so the
// measured run creates new chats as well as finding open ones.
import { Agent, request } from 'undici';
import { createEmulator, DEFAULT_API_KEYS } from '../../dist/emulator/index.js';
import { serveCommands } from '../lib/proc.js';

const NUMBER = '+27820000001';
const CUSTOMERS = 5000;
const BATCH = 1000;

async function emulatorRun({ receiverBase, durationSec, concurrency, customers = CUSTOMERS }) {
  const emulator = createEmulator({ retry: { attempts: 1 }, deliveryConcurrency: concurrency });
  const base = await emulator.listen();
  const bodies = [];
  try {
    const response = await fetch(`${base}${emulator.prefixes.messaging}/Messaging/MessagingClientWebHook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: DEFAULT_API_KEYS.supervisor },
      body: JSON.stringify({
        incomingMessageURL: `${receiverBase}/incoming`,
        chatbotWebhookURL: `${receiverBase}/chatbot`,
      }),
    });
    if (!response.ok) throw new Error(`webhook configuration failed: ${response.status}`);
    let messages = 0;
    // runs on across the warm-up, so the measured run meets customers it has not seen
    let sent = 0;
    const batch = () => {
      for (let i = 0; i < BATCH; i += 1, messages += 1, sent += 1) {
        emulator.customerMessage({
          number: NUMBER,
          from: `+2784${String(sent % customers).padStart(7, '0')}`,
          text: `Order ${messages}: where is it?`,
        });
      }
    };
    // warm-up (not counted); its bodies feed the bare loop
    batch();
    await emulator.idle();
    for (const entry of emulator.deliveries())
      bodies.push({ url: entry.url, body: JSON.stringify(entry.payload) });
    emulator.clearDeliveries();
    messages = 0;
    let delivered = 0;
    let failed = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round(durationSec * 1e9));
    while (process.hrtime.bigint() < deadline) {
      batch();
      await emulator.idle();
      for (const entry of emulator.deliveries()) {
        if (entry.state === 'delivered') delivered += 1;
        else failed += 1;
      }
      emulator.clearDeliveries();
    }
    const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      result: {
        messages,
        delivered,
        failed,
        elapsedSec,
        deliveriesPerSec: delivered / elapsedSec,
        customers: Math.min(sent, customers),
      },
      bodies,
    };
  } finally {
    await emulator.close();
  }
}

async function bareLoop({ bodies, durationSec, concurrency }) {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 4000 });
  const headers = { 'content-type': 'application/json', 'user-agent': 'bench-bare-loop' };
  let next = 0;
  let ok = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(durationSec * 1e9));
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const { url, body } = bodies[next++ % bodies.length];
      try {
        const res = await request(url, { method: 'POST', headers, body, dispatcher: agent });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
  await agent.close();
  return { posted: ok, failed, elapsedSec, postsPerSec: ok / elapsedSec };
}

/** Emulator first (it yields the bodies), then the bare loop on the same receiver. */
async function compare({ receiverBase, durationSec, concurrency, customers }) {
  const { result: emulator, bodies } = await emulatorRun({
    receiverBase,
    durationSec,
    concurrency,
    customers,
  });
  const bare = await bareLoop({ bodies, durationSec, concurrency });
  return { concurrency, emulator, bare, ratio: emulator.deliveriesPerSec / bare.postsPerSec };
}

serveCommands({ compare });
process.send({ ready: true });
