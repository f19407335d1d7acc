/*
 * What the live-chat operations do to chatbot payloads (assignedAgentId/Name,
 * lastAssignedAgentId/Name) and to chatbotStopOnAgentAssignment: assignment changed through
 * terminateChatParticipantChat is what the next chatbot event reflects. Delivered over HTTP to a
 * capture server on 127.0.0.1, port 0.
 */
import { startCaptureServer, type CaptureServer } from '../harness.js';
import { CHAT, IDS, KEYS, setup } from './fixtures.js';

const NUMBER = '+27820000002';
const CUSTOMER = '+27831110001'; // the open chat's customer

let ctx: ReturnType<typeof setup>;
let capture: CaptureServer;
beforeEach(async () => {
  ctx = setup();
  capture = await startCaptureServer();
});
afterEach(async () => {
  await ctx.emulator.close();
  await capture.close();
});

async function configure(stopOnAgentAssignment: boolean): Promise<void> {
  const res = await ctx
    .api()
    .post('/Messaging/MessagingClientWebHook')
    .set('authorization', KEYS.supervisor)
    .send({
      chatbotWebhookURL: `${capture.url}/chatbot`,
      chatbotStopOnAgentAssignment: stopOnAgentAssignment,
      chatbotPayloadVersion: 'v2',
    });
  expect(res.status).toBe(200);
}

async function chatbotPayloadOfNextMessage(): Promise<Record<string, unknown> | undefined> {
  const before = capture.requests.length;
  const result = ctx.emulator.customerMessage({ number: NUMBER, from: CUSTOMER, text: 'hello' });
  expect(result.chatParticipantId).toBe(IDS.openChat);
  await ctx.emulator.idle();
  return capture.requests.slice(before).find((r) => r.path === '/chatbot')?.body as
    Record<string, unknown> | undefined;
}

async function fetched(): Promise<Record<string, unknown>> {
  const res = await ctx
    .api()
    .get(`${CHAT}/ChatParticipant`)
    .query({ id: IDS.openChat })
    .set('authorization', KEYS.supervisor);
  return res.body as Record<string, unknown>;
}

const terminate = (body: Record<string, unknown>) =>
  ctx
    .api()
    .put(`${CHAT}/ChatParticipant/terminateChatParticipantChat`)
    .set('authorization', KEYS.supervisor)
    .send(body);

it('with chatbotStopOnAgentAssignment, an omitted assignedTo (rule 2) un-assigns the chat and emission resumes, without lastAssignedAgent', async () => {
  await configure(true);
  expect(await chatbotPayloadOfNextMessage()).toBeUndefined();
  const { assignedTo: _dropped, ...rest } = await fetched();
  expect((await terminate(rest)).status).toBe(200);
  const payload = await chatbotPayloadOfNextMessage();
  expect(payload).toMatchObject({ chatParticipantId: IDS.openChat, direction: 'INCOMING' });
  expect(payload).not.toHaveProperty('assignedAgentId');
  // rule 2 clears without moving the agent to lastAssignedAgent
  expect(payload).not.toHaveProperty('lastAssignedAgentId');
});

it('an assignedTo set through the operation (rule 1) shows as assignedAgentId/Name, the previous agent as lastAssignedAgentId/Name', async () => {
  await configure(false);
  const current = await fetched();
  expect(
    (await terminate({ ...current, assignedTo: { id: IDS.bob }, lastAssignedAgent: { id: IDS.ada } })).status,
  ).toBe(200);
  expect(await chatbotPayloadOfNextMessage()).toMatchObject({
    assignedAgentId: IDS.bob,
    assignedAgentName: 'Bob Agent',
    lastAssignedAgentId: IDS.ada,
    lastAssignedAgentName: 'Ada Agent',
  });
});
