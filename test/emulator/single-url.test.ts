import { SEED, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Every URL field pointed at one URL (the receiver's auto-detecting `/`): each emitted payload
 * type is told apart by its shape and reaches the right callback.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

it('one URL for all five types: every event reaches its own callback', async () => {
  const url = `${h.receiverUrl}/a/`;
  await h.createConfig({
    incomingMessageURL: url,
    statusUpdateURL: url,
    sessionStatusURL: url,
    eventWebhookURL: url,
    chatbotWebhookURL: url,
    chatbotIncludeOutgoing: true,
    chatbotPayloadVersion: 'v2',
  });
  const { chatParticipantId } = h.emulator.customerMessage({
    number: SEED.lite.msisdn,
    from: '+27831110001',
    text: 'hi',
  });
  h.emulator.botReply({ chatParticipantId, messageText: 'hello' });
  const { message } = h.emulator.sendMessage({ number: SEED.lite.msisdn, to: '+27831110001' });
  h.emulator.updateMessageStatus({ gstId: message.gstId, status: 'SENT' });
  h.emulator.sessionChange({ number: SEED.lite.msisdn, status: 'Connecting...' });
  h.emulator.partnerEvent({
    messagingNumber: SEED.lite.msisdn,
    eventType: 'TEMPLATE_STATUS_CHANGED',
    templateName: 'welcome',
    templateStatus: 'APPROVED',
  });
  await h.settle();
  expectAllDeliveriesValid(h.emulator);
  expect(h.emulator.deliveries().map((d) => [d.type, d.responseStatus])).toEqual([
    ['incoming', 200],
    ['chatbot', 200],
    ['chatbot', 200],
    ['status', 200],
    ['status', 200],
    ['session', 200],
    ['event', 200],
  ]);
  expect(h.calls.map((call) => call.type).sort()).toEqual(
    ['chatbot', 'chatbot', 'event', 'incoming', 'session', 'status', 'status'].sort(),
  );
});
