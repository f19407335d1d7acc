// The emulator's memory over a long run (issue 23): 1,000,000 customer messages from 100,000
// customers, with what a real day adds (an outbound message and its status every 5th message, a
// chat closed every 20th, so customers come back to new chats), and the heap measured after a
// full GC: bytes per customer after each customer's first message, then bytes per message over
// the rest of the run, and over its second half, once the retention limits are reached (closed
// chats by 200,000 messages, outbound messages by 500,000 with the defaults): what would
// otherwise grow with every message is bounded. The delivery log has its own limit.
//
//   node --expose-gc bench/tools/emulator-soak.js [--customers=100000] [--messages=1000000]
//        [--deliver]     also deliver every event to a receiver in this process (incoming,
//                        chatbot, status): the delivery log's share of the heap, slower
//
// Not part of `npm run bench` (about a minute without --deliver). Writes
// bench/results/emulator-soak-<timestamp>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createEmulator, DEFAULT_API_KEYS } from '../../dist/emulator/index.js';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key, value ?? 'true'];
  }),
);
const CUSTOMERS = Number(args.get('customers') ?? 100_000);
const MESSAGES = Number(args.get('messages') ?? 1_000_000);
const DELIVER = args.has('deliver');
const NUMBER = '+27820000002';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc bench/tools/emulator-soak.js');
  process.exit(1);
}

function heap() {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, external, arrayBuffers } = process.memoryUsage();
  return heapUsed + external + arrayBuffers;
}
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const customer = (n) => `+2784${String(n).padStart(7, '0')}`;

async function main() {
  let receiver;
  const emulator = createEmulator({ retry: { attempts: 1 }, deliveryConcurrency: 32 });
  if (DELIVER) {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('{"received":true}'));
    });
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${receiver.address().port}`;
    const url = await emulator.listen();
    const response = await fetch(`${url}/Messaging/MessagingClientWebHook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: DEFAULT_API_KEYS.supervisor },
      body: JSON.stringify({
        incomingMessageURL: `${base}/incoming`,
        statusUpdateURL: `${base}/status`,
        chatbotWebhookURL: `${base}/chatbot`,
      }),
    });
    if (!response.ok) throw new Error(`webhook configuration failed: ${response.status}`);
  }
  const { state } = emulator;
  const started = performance.now();
  const baseline = heap();
  let sent = 0;
  let outbound = 0;
  let closed = 0;
  const step = async (n) => {
    const from = customer(n % CUSTOMERS);
    const { chatParticipantId } = emulator.customerMessage({ number: NUMBER, from, text: `Order ${n}` });
    sent += 1;
    if (n % 5 === 4) {
      const { message } = emulator.sendMessage({ number: NUMBER, to: from });
      emulator.updateMessageStatus({ gstId: message.gstId, status: 'SENT' });
      outbound += 1;
    }
    if (n % 20 === 19) {
      const chat = state.chatParticipants.get(chatParticipantId);
      if (chat !== undefined && !chat.conversationClosed) {
        state.setConversationClosed(chat, true);
        closed += 1;
      }
    }
    if (DELIVER && n % 1000 === 999) await emulator.idle();
  };
  for (let n = 0; n < CUSTOMERS; n += 1) await step(n);
  await emulator.idle();
  const afterCustomers = heap();
  const counts = () => ({
    chats: state.chatParticipants.size,
    openChats: state.listings.openChats.size,
    closedChats: state.listings.closedChats.size,
    outboundMessages: state.messages.size,
    deliveryLog: emulator.deliveries().length,
  });
  const atCustomers = counts();
  const marks = [];
  for (let n = CUSTOMERS; n < MESSAGES; n += 1) {
    await step(n);
    if ((n + 1) % 100_000 === 0) {
      await emulator.idle();
      const bytes = heap();
      marks.push({ messages: n + 1, heapBytes: bytes - baseline, ...counts() });
      console.log(`${n + 1} messages: heap ${mib(bytes - baseline)} above the start`, counts());
    }
  }
  await emulator.idle();
  const end = heap();
  const half = marks.find((mark) => mark.messages >= MESSAGES / 2);
  const seconds = (performance.now() - started) / 1000;
  const result = {
    startedAt: new Date(Date.now() - seconds * 1000).toISOString(),
    node: process.version,
    cpu: os.cpus()[0]?.model,
    loadavg: os.loadavg(),
    settings: { customers: CUSTOMERS, messages: MESSAGES, deliver: DELIVER, retention: state.retention },
    seconds,
    operations: { customerMessages: sent, outboundMessages: outbound, chatsClosed: closed },
    heapAfterCustomers: afterCustomers - baseline,
    heapAtEnd: end - baseline,
    bytesPerCustomer: (afterCustomers - baseline) / CUSTOMERS,
    bytesPerMessage: (end - afterCustomers) / (MESSAGES - CUSTOMERS),
    bytesPerMessageSecondHalf:
      half === undefined ? undefined : (end - baseline - half.heapBytes) / (MESSAGES - half.messages),
    atCustomers,
    atEnd: counts(),
    marks,
  };
  console.log(
    `\n${MESSAGES} messages from ${CUSTOMERS} customers in ${seconds.toFixed(0)} s: ` +
      `${result.bytesPerCustomer.toFixed(0)} bytes per customer (after each one's first message), ` +
      `${result.bytesPerMessage.toFixed(1)} bytes per message over the next ${MESSAGES - CUSTOMERS} ` +
      `(the limits filling), ${result.bytesPerMessageSecondHalf?.toFixed(1)} over the second half ` +
      `(heap ${mib(result.heapAfterCustomers)} → ${mib(result.heapAtEnd)} above the start)`,
  );
  console.log('kept at the end:', result.atEnd);
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}emulator-soak-${result.startedAt.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`results written to ${file}`);
  await emulator.close();
  receiver?.close();
}

await main();
