import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPlatformClient } from '../../../src/client/index.js';
import { createNodeHandler } from '../../../src/receiver/index.js';
import { readCapture } from '../../../src/testing/capture.js';
import { replay } from '../../../src/testing/replay.js';
import { SEED, startHarness, type Harness } from '../harness.js';
import { describeInBrowser, launchBrowser } from './browser.js';

// The inspector as a workbench, in the system Chromium at 1280 px: what each log row says, one
// chat read as a conversation, tables that fit, tokens masked until revealed, a delivery exported
// as a fixture. UPDATE_SCREENSHOT=1 writes docs/inspector-conversation.png.

const WIDTH = 1280;

describeInBrowser('the inspector as a workbench (1280 px)', () => {
  let harness: Harness;
  let url: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    harness = await startHarness();
    url = await harness.emulator.listen();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: WIDTH, height: 900 } });
    context.setDefaultTimeout(10_000);
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${url}/`) ? route.continue() : route.abort(),
    );
    page = await context.newPage();
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await harness?.close();
  });
  afterEach(async () => {
    await harness.reset();
  });

  /** A client default forwarding every type to mount `a`, each URL carrying a token. */
  async function configureWithToken(extra: Record<string, unknown> = {}): Promise<void> {
    const a = harness.urls('a');
    const withToken = Object.fromEntries(
      Object.entries(a).map(([field, value]) => [field, `${value}?token=s3cret`]),
    );
    await harness.createConfig({
      ...withToken,
      chatbotPayloadVersion: 'v2',
      chatbotIncludeOutgoing: true,
      ...extra,
    });
  }

  /** A conversation: customer messages, a bot reply, an agent handover, an outbound message with its receipts, the closure. */
  async function playConversation(): Promise<string> {
    const customer = '+27831234567';
    const { chatParticipantId } = harness.emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: customer,
      text: 'Hi, is my order ready?',
    });
    harness.emulator.botReply({ chatParticipantId, messageText: 'Let me check that for you.' });
    harness.emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada, notify: true });
    harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: customer, text: 'Thanks Ada!' });
    const sent = harness.emulator.sendMessage({ number: SEED.lite.msisdn, to: customer });
    await harness.settle();
    for (const status of ['SENT', 'DELIVERED', 'READ'] as const) {
      harness.emulator.updateMessageStatus({ gstId: sent.message.gstId, status });
      await harness.settle();
    }
    const closed = await harness
      .api()
      .post(`/chat/v2/ChatParticipant/${chatParticipantId}/terminate`)
      .set('authorization', SEED.supervisorKey)
      .send({});
    expect(closed.status).toBe(200);
    await harness.settle();
    return chatParticipantId;
  }

  it('shows the message text and the status value in each log row', async () => {
    await configureWithToken();
    await playConversation();
    await page.goto(`${url}/_emulator#log`);
    const content = await page.locator('#log-table tbody td.content').allTextContents();
    expect(content).toContain('TEXT "Hi, is my order ready?"');
    expect(content).toContain('OUTGOING TEXT "Let me check that for you."');
    expect(content.filter((text) => /^(ACCEPTED|SENT|DELIVERED|READ)$/.test(text))).toEqual([
      'READ',
      'DELIVERED',
      'SENT',
      'ACCEPTED',
    ]);
    // and the customer, beside the number
    await expect(
      page.locator('#log-table tbody .customer', { hasText: '+27831234567' }).count(),
    ).resolves.toBeGreaterThan(0);
  });

  it('shows a bot’s answer sent with Send an agent message (v2) in the conversation, with its receipts', async () => {
    await configureWithToken();
    const { chatParticipantId } = harness.emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: '+27831239999',
      text: 'Where is my parcel?',
    });
    const platform = createPlatformClient({ baseUrl: url, apiKey: SEED.supervisorKey });
    await platform.agentMessages.send({ chatParticipantId, channel: 'MESSAGING', text: 'It ships today.' });
    await harness.settle();
    await page.goto(`${url}/_emulator?conversation=${chatParticipantId}`);
    await page.locator('#conversation-view ol.conversation').waitFor();
    const steps = page.locator('#conversation-view li.step');
    const read = await steps.evaluateAll((items) =>
      items.map(
        (item) => `${item.className.replace('step ', '')}: ${item.querySelector('.said')?.textContent ?? ''}`,
      ),
    );
    // the OUTGOING event and the receipts are one bubble: the event's messageId is the gstId
    expect(read).toEqual([
      'customer message: TEXT "Where is my parcel?"',
      'business outbound: TEXT "It ships today."',
    ]);
    await expect(steps.nth(1).locator('.said').isVisible()).resolves.toBe(true);
    await expect(steps.nth(1).locator('.receipt').allTextContents()).resolves.toEqual(['SENT', 'DELIVERED']);
  });

  it('reads one chat as a conversation: messages both ways, receipts, the handover and the closure', async () => {
    await configureWithToken();
    const chat = await playConversation();
    await page.goto(`${url}/_emulator`);
    await page.getByRole('button', { name: `Show the conversation of chat ${chat}` }).click();
    await page.locator('#conversation-view ol.conversation').waitFor();
    const steps = page.locator('#conversation-view li.step');
    const read = await steps.evaluateAll((items) =>
      items.map(
        (item) => `${item.className.replace('step ', '')}: ${item.querySelector('.said')?.textContent ?? ''}`,
      ),
    );
    expect(read).toEqual([
      'customer message: TEXT "Hi, is my order ready?"',
      'business message: TEXT "Let me check that for you."',
      'platform handover: Assigned to Ada Agent',
      'customer message: TEXT "Thanks Ada!"',
      expect.stringMatching(/^business outbound: Outbound message [0-9a-f]{8}$/),
      expect.stringMatching(/^platform closure: Conversation closed/),
    ]);
    await expect(steps.nth(4).locator('.receipt').allTextContents()).resolves.toEqual([
      'ACCEPTED',
      'SENT',
      'DELIVERED',
      'READ',
    ]);
    // a customer message sent to both URLs is one bubble built from both deliveries
    await expect(steps.first().locator('[data-open]').count()).resolves.toBe(2);
    // it follows the log: a new message appears without a reload, in the URL the view is kept
    expect(new URL(page.url()).searchParams.get('conversation')).toBe(chat);
    await steps.first().locator('[data-open]').first().click();
    await page.locator('#detail:not([hidden])').waitFor();
    if (process.env.UPDATE_SCREENSHOT === '1') {
      await page.locator('#detail-close').click();
      await page.locator('#conversation').screenshot({ path: 'docs/inspector-conversation.png' });
    }
  });

  it('fits every table in 1280 px: no column, URL or action cut off', async () => {
    await configureWithToken();
    await harness.createConfig({
      messagingNumberId: SEED.lite.id,
      incomingMessageURL: `${harness.receiverUrl}/b/incoming/a-rather-long-path/that-goes-on?token=s3cret&tenant=acme-corporation`,
      chatbotWebhookURL: `${harness.receiverUrl}/b/chatbot?token=s3cret`,
      chatbotStopOnAgentAssignment: true,
    });
    await playConversation();
    await page.goto(`${url}/_emulator`);
    const overflow = await page.evaluate(`(() => {
      const width = document.documentElement.clientWidth;
      const cut = [];
      for (const table of document.querySelectorAll('table')) {
        const box = table.getBoundingClientRect();
        if (box.right > width + 0.5) cut.push(table.id + ' ends at ' + Math.round(box.right));
        for (const el of table.querySelectorAll('th, td, button')) {
          const r = el.getBoundingClientRect();
          if (r.right > width + 0.5) cut.push(table.id + ': ' + el.tagName + ' ' + el.textContent.slice(0, 30) + ' ends at ' + Math.round(r.right));
          if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'BUTTON') cut.push(table.id + ': ' + el.tagName + ' overflows: ' + el.textContent.slice(0, 30));
        }
      }
      return { cut, scroll: document.documentElement.scrollWidth, width };
    })()`);
    expect(overflow).toEqual({ cut: [], scroll: WIDTH, width: WIDTH });
    // every configuration's actions can be reached
    for (const button of await page.locator('#configs-table button').all()) {
      await expect(button.isVisible()).resolves.toBe(true);
    }
  });

  it('masks tokens in the scope, the configurations, the log and the detail, and reveals them on request', async () => {
    await configureWithToken();
    harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Hi' });
    await harness.settle();
    await page.goto(`${url}/_emulator`);
    const html = await page.content();
    expect(html).not.toContain('s3cret');
    // the demo client's two numbers: five types on the Lite one, four on the Cloud one (no sessions)
    await expect(page.locator('#scope-table .url', { hasText: '?token=****' }).count()).resolves.toBe(9);
    await expect(page.locator('#configs-table .url', { hasText: '?token=****' }).count()).resolves.toBe(5);
    await expect(page.locator('#log-table td.url', { hasText: '?token=****' }).count()).resolves.toBe(2);
    await page.locator('#log-table [data-open]').first().click();
    await page.locator('#detail:not([hidden])').waitFor();
    await expect(page.locator('#h-detail').textContent()).resolves.toContain('?token=****');
    expect(await page.content()).not.toContain('s3cret');
    // the JSON listings too
    const listed = (await (await fetch(`${url}/_emulator/deliveries`)).json()) as {
      items: { url: string }[];
    };
    expect(listed.items.every((item) => item.url.endsWith('?token=****'))).toBe(true);
    const revealedList = (await (await fetch(`${url}/_emulator/deliveries?reveal=true`)).json()) as {
      items: { url: string }[];
    };
    expect(revealedList.items.every((item) => item.url.endsWith('?token=s3cret'))).toBe(true);

    // Edit fetches the configuration as stored: the form gets the real URL, not the mask
    await page.locator('#configs-table [data-edit-config]').first().click();
    await page.locator('#config-legend').filter({ hasText: 'Update configuration' }).waitFor();
    await expect(page.locator('#config-form input[name="incomingMessageURL"]').inputValue()).resolves.toMatch(
      /\?token=s3cret$/,
    );

    await page.getByRole('button', { name: 'Reveal secrets' }).click();
    await page.waitForURL(/reveal=1/);
    await expect(page.locator('#log-table td.url', { hasText: '?token=s3cret' }).count()).resolves.toBe(2);
    await expect(page.locator('#scope-table .url', { hasText: '?token=s3cret' }).count()).resolves.toBe(9);
    await page.getByRole('button', { name: 'Mask secrets' }).click();
    await page.waitForURL((target) => !target.search.includes('reveal'));
    expect(await page.content()).not.toContain('s3cret');
  });

  it('exports a delivery as a fixture that replay and the testing helpers read', async () => {
    await configureWithToken();
    harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Export me' });
    await harness.settle();
    await page.goto(`${url}/_emulator`);
    await page
      .locator('#log-table tbody tr', { has: page.locator('td:text-is("incoming")') })
      .locator('[data-open]')
      .click();
    const link = page.locator('#detail-fixture');
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = join(mkdtempSync(join(tmpdir(), 'mw-fixture-')), download.suggestedFilename());
    expect(download.suggestedFilename()).toMatch(/^delivery-\d+\.jsonl$/);
    await download.saveAs(file);
    const lines = [];
    for await (const line of readCapture(file)) lines.push(line);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.record).toMatchObject({ path: '/incoming', type: 'incoming' });
    expect(JSON.parse(lines[0]?.record?.body ?? '{}')).toMatchObject({
      text: 'Export me',
      sender: '+27831234567',
    });
    // no URL, no token in it
    expect(JSON.stringify(lines[0])).not.toContain('s3cret');

    const received: unknown[] = [];
    const app = createNodeHandler({ token: false, onIncoming: (message) => void received.push(message) });
    const report = await replay(file, app);
    expect(report.failed).toBe(0);
    await app.idle();
    expect(received).toEqual([expect.objectContaining({ text: 'Export me' })]);
  });

  it('threw no page error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
