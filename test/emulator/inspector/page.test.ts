import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { createEmulator, type Emulator } from '../../../src/emulator/index.js';
import { SEED, startHarness, WEBHOOK_API, type Harness } from '../harness.js';
import { describeInBrowser, launchBrowser } from './browser.js';

// The inspector page in the system Chromium, with every request but the emulator's blocked.

describeInBrowser('inspector page in a browser', () => {
  let harness: Harness;
  let url: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];
  const blocked: string[] = [];

  /** Opens the page in a context where only `base` is reachable. */
  async function openContext(base: string): Promise<BrowserContext> {
    const opened = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    opened.setDefaultTimeout(10_000);
    await opened.route('**/*', (route) => {
      const target = route.request().url();
      if (target.startsWith(`${base}/`) || target.startsWith('data:')) return route.continue();
      blocked.push(target);
      return route.abort();
    });
    return opened;
  }
  function watch(target: Page): Page {
    target.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    target.on('pageerror', (error) => consoleErrors.push(error.message));
    return target;
  }
  const api = () => harness.api();
  const auth = SEED.supervisorKey;
  /** The scope table cell of a number and webhook type. */
  const cell = (msisdn: string, type: string) =>
    page
      .locator('#scope-table tbody tr', { has: page.locator(`th:text-is("${msisdn}")`) })
      .locator(`td[data-type="${type}"]`);
  /** The scope table, once the page's refresh (after a form's answer) shows `expected` there. */
  async function awaitRoute(msisdn: string, type: string, expected: string, reason: string): Promise<void> {
    await cell(msisdn, type).locator(`.url:text-is("${expected}")`).waitFor();
    await expectRoute(msisdn, type, expected, reason);
  }
  async function expectRoute(msisdn: string, type: string, expected: string, reason: string): Promise<void> {
    await expect(cell(msisdn, type).locator('.url').textContent()).resolves.toBe(expected);
    await expect(cell(msisdn, type).locator('.reason').textContent()).resolves.toBe(reason);
  }

  beforeAll(async () => {
    harness = await startHarness();
    url = await harness.emulator.listen();
    browser = await launchBrowser();
    context = await openContext(url);
    page = watch(await context.newPage());
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await harness?.close();
  });
  afterEach(async () => {
    await harness.reset();
  });

  it('shows the URL and the reason of each scope rule (1-8) in the scope table', async () => {
    const a = harness.urls('a');
    const b = harness.urls('b');
    await page.goto(url);
    // a fresh emulator: nothing configured, and the page says how to configure
    await expectRoute(SEED.lite.msisdn, 'incoming', '(none)', 'nothing configured yet');
    await expect(page.locator('#no-config').textContent()).resolves.toContain('No webhook configured yet');
    await expect(page.locator('#no-config').textContent()).resolves.toContain('--forward-to');
    await expect(page.locator('#no-config-scope a[href="#configs"]').count()).resolves.toBe(1);
    // rule 1: the client default applies to every number of the client without an override
    // live: a configuration made through the API shows without a reload
    const created = await harness.createConfig({ chatbotWebhookURL: a.chatbotWebhookURL });
    await page
      .locator('#scope-table td[data-type="chatbot"] .reason', { hasText: 'client default' })
      .first()
      .waitFor();
    await api()
      .delete(`${WEBHOOK_API}/${String(created.id)}`)
      .set('authorization', auth);
    const byDefault = await harness.createConfig({
      incomingMessageURL: a.incomingMessageURL,
      statusUpdateURL: a.statusUpdateURL,
    });
    await page.reload();
    await expectRoute(SEED.lite.msisdn, 'incoming', a.incomingMessageURL, 'client default');
    await expectRoute(SEED.cloud.msisdn, 'status', a.statusUpdateURL, 'client default');
    await expectRoute(SEED.cloud.msisdn, 'session', '(none)', 'Cloud number: no session events');
    // rules 2 and 3: an override applies to its number only, and wins there
    const override = await harness.createConfig({
      messagingNumberId: SEED.lite.id,
      incomingMessageURL: b.incomingMessageURL,
    });
    // rule 4: an override with empty URLs silences one number
    await harness.createConfig({
      messagingNumberId: SEED.cloud.id,
      incomingMessageURL: '',
      statusUpdateURL: '',
    });
    await page.reload();
    await expectRoute(SEED.lite.msisdn, 'incoming', b.incomingMessageURL, 'override');
    await expectRoute(SEED.lite.msisdn, 'status', '(none)', 'not set in override');
    await expectRoute(SEED.cloud.msisdn, 'incoming', '(none)', 'disabled by override (rule 4)');
    // rule 5: a second default is refused; the table keeps the first
    const second = await api()
      .post(WEBHOOK_API)
      .set('authorization', auth)
      .send({ incomingMessageURL: b.incomingMessageURL });
    expect(second.status).toBe(409);
    // rule 6: the number must be the caller's: client demo cannot route client other's number
    const foreign = await api()
      .post(WEBHOOK_API)
      .set('authorization', auth)
      .send({ messagingNumberId: SEED.foreign.id, incomingMessageURL: b.incomingMessageURL });
    expect(foreign.status).toBe(403);
    // rule 7: an update cannot change scope (messagingNumberId ignored): still an override
    const updated = await api()
      .put(WEBHOOK_API)
      .set('authorization', auth)
      .send({ id: override.id, messagingNumberId: null, incomingMessageURL: a.chatbotWebhookURL });
    expect(updated.status).toBe(200);
    await page.reload();
    await expectRoute(SEED.lite.msisdn, 'incoming', a.chatbotWebhookURL, 'override');
    await expectRoute(SEED.foreign.msisdn, 'incoming', '(none)', 'nothing configured yet');
    await expect(page.locator('#no-config').count()).resolves.toBe(0);
    await expect(page.locator('#no-config-scope').count()).resolves.toBe(0);
    const configs = await page.locator('#configs-table tbody tr').allTextContents();
    expect(configs.map((text) => text.slice(0, 40))).toEqual([
      expect.stringContaining('democlient default'),
      expect.stringContaining(`demooverride ${SEED.lite.msisdn}`),
      expect.stringContaining(`demooverride ${SEED.cloud.msisdn}`),
    ]);
    // rule 8: deleting the override re-exposes the default; deleting the default stops the rest
    await api()
      .delete(`${WEBHOOK_API}/${String(override.id)}`)
      .set('authorization', auth);
    await page.reload();
    await expectRoute(SEED.lite.msisdn, 'incoming', a.incomingMessageURL, 'client default');
    await api()
      .delete(`${WEBHOOK_API}/${String(byDefault.id)}`)
      .set('authorization', auth);
    await page.reload();
    await expectRoute(SEED.lite.msisdn, 'incoming', '(none)', 'no client default and no override (rule 8)');
    await expectRoute(SEED.cloud.msisdn, 'incoming', '(none)', 'disabled by override (rule 4)');
  });

  it('shows a customer message sent through the form in the live log, opens its payload, and resends it', async () => {
    await harness.createConfig({ incomingMessageURL: harness.urls('a').incomingMessageURL });
    await page.goto(url);
    await page.evaluate(() => {
      (globalThis as { notReloaded?: boolean }).notReloaded = true;
    });
    const form = page.locator('form[data-post="/_emulator/customer-message"]');
    await form.getByLabel('Your number').selectOption(SEED.cloud.msisdn);
    await form.getByLabel('Text', { exact: true }).fill('Hello from the form');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.locator('output.ok').waitFor();
    const first = page.locator('#log-table tbody tr').first();
    await first.locator('td:text-is("delivered")').waitFor();
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);

    // keyboard: focus the row's Open button and press Enter
    // sequence numbers run on across resets: read this delivery's
    const sequence = ((await first.locator('[data-open]').textContent()) ?? '').slice(1);
    await first.getByRole('button', { name: `Open delivery ${sequence}` }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#detail').waitFor({ state: 'visible' });
    const payload = (await page.locator('#detail-payload').textContent()) ?? '';
    expect(JSON.parse(payload)).toMatchObject({ text: 'Hello from the form', receiver: SEED.cloud.msisdn });
    expect(payload).toContain('\n  "'); // pretty-printed
    await expect(page.locator('#detail-response').textContent()).resolves.toContain('"received": true');

    // resend from the row: the receiver gets the same body again and answers it as a duplicate
    await first.getByRole('button', { name: `Resend delivery ${sequence}` }).click();
    const resent = page.locator('#log-table tbody tr', { hasText: `resend of #${sequence}` });
    await resent.locator('td:text-is("delivered")').waitFor();
    await harness.settle();
    const [original, again] = harness.emulator.deliveries();
    expect(again?.payload).toEqual(original?.payload);
    expect(harness.routerA.stats().incoming).toMatchObject({ received: 2, duplicates: 1 });
    await resent.getByRole('button', { name: /Open delivery/ }).click();
    await page.locator('#detail-response', { hasText: '"duplicate": true' }).waitFor();
    await page.getByRole('button', { name: 'Copy payload' }).click();

    // an event from outside the page (not its own form) arrives over Server-Sent Events
    harness.emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831234567', text: 'From JS' });
    await page.locator('#log-view p', { hasText: /^3 deliveries/ }).waitFor();
    await page.locator('#log-table tbody tr').first().locator('td:text-is("delivered")').waitFor();
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it('offers only the legal next statuses, and shows the 409 of an illegal one inline', async () => {
    await page.goto(url);
    const send = page.locator('form[data-post="/_emulator/messages"]');
    await send.getByLabel('To (E.164)').fill('+27831234567');
    await send.getByRole('button', { name: 'Send' }).click();
    const row = page.locator('#messages-table tbody tr').first();
    const status = row.getByLabel(/Next status of/);
    await status.waitFor();
    expect(await status.locator('option').allTextContents()).toEqual(['SENT']);
    const gstId = (await row.locator('td').first().textContent()) ?? '';
    // the page has not caught up yet (its refreshes held back, as on a slow network) when JS
    // code moves the message on: its form still offers SENT, now illegal
    const held: Route[] = [];
    const hold = (route: Route): void => void held.push(route);
    await page.route(/\/_emulator\/inspector\/(state|log)/, hold);
    harness.emulator.updateMessageStatus({ gstId, status: 'SENT' });
    await row.getByRole('button', { name: 'Set' }).click();
    const output = row.locator('output');
    await output.filter({ hasText: '409' }).waitFor();
    expect(await output.textContent()).toContain('ILLEGAL_TRANSITION');
    // let the held refreshes through, then stop holding (unroute passes on any held since)
    await Promise.all(held.splice(0).map((route) => route.continue()));
    await page.unroute(/\/_emulator\/inspector\/(state|log)/, hold);
    await status.locator('option', { hasText: 'DELIVERED' }).waitFor({ state: 'attached' });
    await page.reload();
    expect(await status.locator('option').allTextContents()).toEqual(['DELIVERED', 'FAILED']);
    const voice = page.locator('form[data-post="/_emulator/messages"]');
    await voice.getByLabel('Voice note').check();
    await voice.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('#messages-table tbody tr')
      .nth(1)
      .getByLabel(/Next status of/)
      .waitFor();
  });

  it('runs the other trigger forms and shows their errors inline', async () => {
    await page.goto(url);
    const session = page.locator('form[data-post="/_emulator/sessions"]');
    await session.getByLabel('Status').selectOption('Connecting...');
    await session.getByRole('button', { name: 'Send' }).click();
    await session.locator('output.ok').waitFor();
    await page.locator('#scope-table td .block:text-is("session connecting")').waitFor();
    const partner = page.locator('form[data-post="/_emulator/partner-events"]');
    await partner.getByLabel('Event type').selectOption('USER_PREFERENCE');
    await expect(partner.getByLabel('Fields (JSON)').inputValue()).resolves.toContain('preferenceValue');
    await partner.getByLabel('Fields (JSON)').fill('{"waId":"+27831234567","preferenceValue":"stop"}');
    await partner.getByRole('button', { name: 'Send' }).click();
    await partner.locator('output.error').filter({ hasText: '400' }).waitFor();
    expect(await partner.locator('output').textContent()).toContain('waId');
    const customer = page.locator('form[data-post="/_emulator/customer-message"]');
    await customer.getByLabel('From (E.164)').fill('0831234567');
    await customer.getByRole('button', { name: 'Send' }).click();
    await customer.locator('output.error').filter({ hasText: '400' }).waitFor();
    const clock = page.locator('form[data-post="/_emulator/clock/advance"]');
    await clock.getByRole('button', { name: 'Send' }).click();
    await clock.locator('output.ok').waitFor();
    const fault = page.locator('form[data-post="/_emulator/faults"]');
    await fault.locator('select[name="fault.kind"]').selectOption('duplicate');
    await fault.getByRole('button', { name: 'Send' }).click();
    await fault.locator('output.ok').waitFor();
  });

  it('creates, updates and deletes a configuration with the form, and shows the API refusal inline', async () => {
    const a = harness.urls('a');
    await page.goto(url);
    const form = page.locator('#config-form');
    // a validation error of the API (the same schema a platform user meets), shown under the form
    await form.locator('input[name="incomingMessageURL"]').fill('not a url');
    await form.getByRole('button', { name: 'Create' }).click();
    await form.locator('output.error').filter({ hasText: '400' }).waitFor();
    expect(await form.locator('output').textContent()).toContain('incomingMessageURL');
    expect(harness.emulator.state.webhookConfigs.size).toBe(0);

    // create: the client default of client demo
    await form.locator('input[name="incomingMessageURL"]').fill(a.incomingMessageURL);
    await form.locator('input[name="chatbotWebhookURL"]').fill(a.chatbotWebhookURL);
    await form.getByLabel('chatbotPayloadVersion').selectOption('v2');
    await form.getByLabel('disable statusUpdateURL').check();
    await form.getByRole('button', { name: 'Create' }).click();
    await form.locator('output.ok').filter({ hasText: '200' }).waitFor();
    await awaitRoute(SEED.lite.msisdn, 'incoming', a.incomingMessageURL, 'client default');
    await awaitRoute(SEED.lite.msisdn, 'status', '(none)', 'disabled by client default (rule 4)');
    await expect(page.locator('#no-config').count()).resolves.toBe(0);
    const [created] = harness.emulator.state.webhookConfigsOfClient(
      [...harness.emulator.state.clients.values()].find((c) => c.clientRef === 'demo')?.id ?? '',
    );
    expect(created).toMatchObject({
      messagingNumberId: null,
      statusUpdateURL: '',
      chatbotPayloadVersion: 'v2',
    });

    // a second default: the API's 409 (scope rule 5), inline
    await form.getByRole('button', { name: 'Create' }).click();
    await form.locator('output.error').filter({ hasText: '409' }).waitFor();

    // update: Edit fills the form from the row; the scope is fixed (rule 7)
    await page.getByRole('button', { name: `Edit configuration ${String(created?.id)}` }).click();
    // Edit fetches the stored configuration: the form is filled once its legend says so
    await page.locator('#config-legend').filter({ hasText: 'Update configuration' }).waitFor();
    await expect(form.locator('input[name="incomingMessageURL"]').inputValue()).resolves.toBe(
      a.incomingMessageURL,
    );
    await expect(form.getByLabel('Scope').isDisabled()).resolves.toBe(true);
    await form.locator('input[name="incomingMessageURL"]').fill(harness.urls('b').incomingMessageURL);
    await form.getByLabel('chatbotIncludeOutgoing').selectOption('true');
    await form.getByRole('button', { name: 'Update' }).click();
    await form.locator('output.ok').filter({ hasText: '200' }).waitFor();
    await awaitRoute(SEED.lite.msisdn, 'incoming', harness.urls('b').incomingMessageURL, 'client default');
    expect(harness.emulator.webhookConfigFor(SEED.lite.msisdn)).toMatchObject({
      id: created?.id,
      chatbotIncludeOutgoing: true,
      chatbotPayloadVersion: 'v2',
      statusUpdateURL: '',
    });

    // delete: the row goes, and the page says again how to configure
    await page.getByRole('button', { name: `Delete configuration ${String(created?.id)}` }).click();
    await page.locator('#no-config').waitFor();
    await awaitRoute(SEED.lite.msisdn, 'incoming', '(none)', 'nothing configured yet');
    await expect(form.getByRole('button', { name: 'Create' }).count()).resolves.toBe(1);
    expect(harness.emulator.state.webhookConfigs.size).toBe(0);
  });

  it("marks the receiver's duplicate answers and the chatbot direction in the log", async () => {
    await harness.createConfig({ ...harness.urls('a'), chatbotIncludeOutgoing: true });
    harness.emulator.injectFault({ kind: 'duplicate' }, { type: 'incoming' });
    const { chatParticipantId } = harness.emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: '+27831234567',
      text: 'Hi',
    });
    harness.emulator.botReply({ chatParticipantId, messageText: 'Hello' });
    await harness.settle();
    await page.goto(url);
    const rows = page.locator('#log-table tbody tr');
    // the emulator's copy (duplicate of #n) is the one the receiver answered as a duplicate
    const copy = rows.filter({ hasText: /duplicate of #\d+/ });
    await expect(copy.locator('.answered-duplicate').textContent()).resolves.toBe('receiver: duplicate');
    await expect(page.locator('#log-table .answered-duplicate').count()).resolves.toBe(1);
    const chatbot = rows.filter({ has: page.locator('td:text-is("chatbot")') });
    expect(await chatbot.locator('.direction').allTextContents()).toEqual(['OUTGOING', 'INCOMING']);
    await expect(
      rows
        .filter({ has: page.locator('td:text-is("incoming")') })
        .locator('.direction')
        .count(),
    ).resolves.toBe(0);
  });

  it('says why a delivery failed: connection refused, or the HTTP status and the first bytes of the body', async () => {
    const failing: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"<b>database down</b>"}'),
      );
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      await harness.createConfig({
        incomingMessageURL: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/incoming`,
        statusUpdateURL: `http://127.0.0.1:${closedPort}/status`,
      });
      harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Hi' });
      harness.emulator.sendMessage({ number: SEED.lite.msisdn, to: '+27831234567' });
      await harness.settle();
      await page.goto(url);
      const why = (type: string) =>
        page
          .locator('#log-table tbody tr', { has: page.locator(`td:text-is("${type}")`) })
          .locator('td.state-failed .why')
          .textContent();
      // the receiver's body is sender-controlled: shown as text, never as markup
      await expect(why('incoming')).resolves.toBe('HTTP 500: {"error":"<b>database down</b>"}');
      await expect(page.locator('#log-table td.state-failed b').count()).resolves.toBe(0);
      await expect(why('status')).resolves.toBe('connection refused');
    } finally {
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('loads 10,000 deliveries, pages through them, and prints the first paint of the log', async () => {
    const receiver: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('{}'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const big: Emulator = createEmulator({ retry: { attempts: 1 }, deliveryConcurrency: 32 });
    const bigUrl = await big.listen();
    const bigContext = await openContext(bigUrl);
    try {
      const port = (receiver.address() as AddressInfo).port;
      const created = await fetch(`${bigUrl}${WEBHOOK_API}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ incomingMessageURL: `http://127.0.0.1:${port}/in` }),
      });
      expect(created.status).toBe(200);
      for (let i = 0; i < 10_000; i += 1) {
        big.customerMessage({
          number: SEED.lite.msisdn,
          from: `+2783${String(1_000_000 + (i % 50))}`,
          text: `m${i}`,
        });
      }
      await big.idle();
      expect(big.deliveries()).toHaveLength(10_000);
      const fetched = performance.now();
      const html = await (await fetch(bigUrl, { headers: { accept: 'text/html' } })).text();
      const serverMs = performance.now() - fetched;
      /** Navigation start to the log's rows painted (test timing), and the browser's first contentful paint. */
      const firstPaint = async (target: Page, base: string): Promise<[number, number | null]> => {
        const started = performance.now();
        await target.goto(base, { waitUntil: 'commit' });
        await target.locator('#log-table tbody tr').first().waitFor();
        // the next animation frame: the rows have been painted
        await target.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)))');
        const shown = performance.now() - started;
        await target.waitForLoadState('load');
        const fcp = await target.evaluate(
          () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
        );
        return [shown, fcp];
      };
      const ms = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(0)} ms`);
      const emptyPage = await context.newPage();
      const [emptyShown, emptyPaint] = await firstPaint(emptyPage, url);
      await emptyPage.close();
      const bigPage = watch(await bigContext.newPage());
      const [shown, paint] = await firstPaint(bigPage, bigUrl);
      console.log(
        `inspector with 10,000 deliveries: log rows painted ${ms(shown)} after navigation started (test timing), first contentful paint ${ms(paint)} (browser timing), the page's HTML (${Math.round(html.length / 1024)} KiB) fetched in ${ms(serverMs)}; ` +
          `the same page with an empty log: ${ms(emptyShown)}, first contentful paint ${ms(emptyPaint)}`,
      );
      await expect(
        bigPage.locator('#log-table tbody tr').first().locator('td').nth(1).textContent(),
      ).resolves.toBeTruthy();
      expect(await bigPage.locator('#log-table tbody tr').count()).toBe(50);
      await expect(bigPage.locator('#log-table [data-open]').first().textContent()).resolves.toBe('#10000');
      await bigPage.getByRole('link', { name: 'Older', exact: true }).click();
      await bigPage.locator('#log-table [data-open]:text-is("#9950")').waitFor();
      await bigPage.locator('#log-filter').getByLabel('State').selectOption('failed');
      await bigPage.locator('#log-filter').getByRole('button', { name: 'Filter' }).click();
      await bigPage.locator('#log-view p', { hasText: '0 deliveries' }).waitFor();
      await bigPage.close();
    } finally {
      await bigContext.close();
      await big.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);

  it('pages the chats and outbound messages 20 at a time, newest first, and filters the chats on the server', async () => {
    const customer = (n: number): string => `+2783555${String(n).padStart(4, '0')}`;
    const chats: string[] = [];
    for (let n = 0; n < 45; n += 1) {
      chats.push(
        harness.emulator.customerMessage({ number: SEED.cloud.msisdn, from: customer(n), text: `m${n}` })
          .chatParticipantId,
      );
    }
    for (let n = 0; n < 25; n += 1)
      harness.emulator.sendMessage({ number: SEED.cloud.msisdn, to: customer(n) });
    // every fifth chat closed (9 of 45)
    for (const id of chats.filter((_, n) => n % 5 === 0)) {
      const closed = await api().post(`/chat/v2/ChatParticipant/${id}/terminate`).set('authorization', auth);
      expect(closed.status).toBe(200);
    }
    await page.goto(url);
    const customers = () => page.locator('#chats-table tbody tr td:nth-child(4)').allTextContents();
    await expect(page.locator('#chats-pager span').textContent()).resolves.toBe(
      '45 chats; 20 shown, newest first',
    );
    expect(await customers()).toEqual(Array.from({ length: 20 }, (_, i) => customer(44 - i)));
    // the next page, fetched without a reload; the log and the other tables stay where they were
    await page.evaluate(() => {
      (globalThis as { notReloaded?: boolean }).notReloaded = true;
    });
    await page.getByRole('link', { name: 'Older chats' }).click();
    await page.locator('#chats-table td:text-is("+27835550024")').waitFor();
    expect(await customers()).toEqual(Array.from({ length: 20 }, (_, i) => customer(24 - i)));
    expect(page.url()).toContain('chatsBefore=');
    await page.getByRole('link', { name: 'Older chats' }).click();
    await page.locator('#chats-pager span', { hasText: '5 shown' }).waitFor();
    expect(await customers()).toEqual([4, 3, 2, 1, 0].map(customer));
    await expect(page.getByRole('link', { name: 'Older chats' }).count()).resolves.toBe(0);
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // a message from a new customer arrives while an older page is shown: the page stays put
    const posted = await api()
      .post('/_emulator/customer-message')
      .send({ number: SEED.cloud.msisdn, from: customer(45), text: 'new' });
    expect(posted.status).toBe(200);
    await page.locator('#chats-pager span', { hasText: '46 chats' }).waitFor();
    expect(await customers()).toEqual([4, 3, 2, 1, 0].map(customer));
    await page.getByRole('link', { name: 'First chats' }).click();
    await page.locator('#chats-table tbody tr').first().locator('td:text-is("+27835550045")').waitFor();

    // filters: closed chats only (newest first); one customer
    const filter = page.locator('#chat-filter');
    await filter.getByLabel('Chats').selectOption('closed');
    await filter.getByRole('button', { name: 'Filter chats' }).click();
    await page.locator('#chats-pager span', { hasText: '9 chats; 9 shown' }).waitFor();
    expect(await customers()).toEqual([40, 35, 30, 25, 20, 15, 10, 5, 0].map(customer));
    await filter.getByLabel('Chats').selectOption('');
    await filter.getByLabel('Customer (phone number)').fill(customer(7));
    await filter.getByRole('button', { name: 'Filter chats' }).click();
    await page.locator('#chats-pager span', { hasText: '1 chats; 1 shown' }).waitFor();
    expect(await customers()).toEqual([customer(7)]);

    // outbound messages: 20 of 25, newest first, then the 5 oldest
    await expect(page.locator('#messages-pager span').textContent()).resolves.toBe(
      '25 outbound messages; 20 shown, newest first',
    );
    await page.getByRole('link', { name: 'Older outbound messages' }).click();
    await page.locator('#messages-pager span', { hasText: '5 shown' }).waitFor();
    expect(await page.locator('#messages-table tbody td:nth-child(3)').allTextContents()).toEqual(
      [4, 3, 2, 1, 0].map(customer),
    );
    // a reload keeps the places (they are in the URL)
    await page.reload();
    expect(await customers()).toEqual([customer(7)]);
    await expect(page.locator('#messages-table tbody tr').count()).resolves.toBe(5);
  });

  it('renders a representative state (the README screenshot: UPDATE_SCREENSHOT=1 writes docs/inspector.png)', async () => {
    const a = harness.urls('a');
    const b = harness.urls('b');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await harness.createConfig({ ...a, chatbotPayloadVersion: 'v2', chatbotIncludeOutgoing: true });
    await harness.createConfig({
      ...b,
      messagingNumberId: SEED.lite.id,
      chatbotWebhookURL: a.chatbotWebhookURL,
      chatbotIncludeOutgoing: true,
    });
    await harness.createConfig({
      messagingNumberId: SEED.cloud.id,
      incomingMessageURL: '',
      eventWebhookURL: `http://127.0.0.1:${closedPort}/webhooks/events`,
    });
    const { chatParticipantId } = harness.emulator.customerMessage({
      number: SEED.lite.msisdn,
      from: '+27831234567',
      text: 'Hi, is my order ready?',
    });
    harness.emulator.botReply({ chatParticipantId, messageText: 'Let me check that for you.' });
    harness.emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada });
    harness.emulator.injectFault({ kind: 'duplicate' }, { type: 'incoming' });
    harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Hello?' });
    harness.emulator.partnerEvent({
      eventType: 'PHONE_QUALITY_CHANGED',
      messagingNumber: SEED.cloud.msisdn,
      qualityRating: 'YELLOW',
    });
    harness.emulator.sessionChange({ number: SEED.lite.msisdn, statusType: 'connecting' });
    const sent = harness.emulator.sendMessage({ number: SEED.lite.msisdn, to: '+27831234567' });
    harness.emulator.updateMessageStatus({ gstId: sent.message.gstId, status: 'SENT' });
    await harness.settle();
    await page.goto(url);
    await expect(page.locator('#log-table tbody tr').count()).resolves.toBe(
      harness.emulator.deliveries().length,
    );
    await page.locator('#log-table .mark', { hasText: /^duplicate of #\d+$/ }).waitFor();
    await page.locator('#log-table .answered-duplicate').waitFor();
    await page.locator('#log-table .why', { hasText: 'connection refused' }).waitFor();
    await expect(page.locator('#log-table .direction').allTextContents()).resolves.toEqual([
      'INCOMING',
      'OUTGOING',
      'INCOMING',
    ]);
    await expect(page.locator('#chats-table tbody td:text-is("Ada Agent")').count()).resolves.toBe(1);
    if (process.env.UPDATE_SCREENSHOT === '1') {
      // the same picture on every run: random ids, ports, latencies and the sequence numbers
      // (which run on across the tests' resets) replaced by fixed ones
      const ports: Record<string, string> = {
        [new URL(url).port]: 'localhost:4010',
        [new URL(harness.receiverUrl).port]: 'localhost:3000',
        [String(closedPort)]: 'localhost:3001',
      };
      // a script as text, as above: the tests compile without the DOM library
      await page.evaluate(`(() => {
        const portNames = ${JSON.stringify(ports)};
        const ids = new Map();
        const sequences = [...document.querySelectorAll('#log-table [data-open]')].map((el) => Number(el.textContent.slice(1)));
        const first = Math.min(...sequences) - 1;
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          node.textContent = node.textContent
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g, (id) => {
              if (id.startsWith('00000000-0000-4000-8000-')) return id;
              if (!ids.has(id)) ids.set(id, '5e1f0000-0000-4000-8000-' + String(ids.size + 1).padStart(12, '0'));
              return ids.get(id);
            })
            .replace(/127\\.0\\.0\\.1:(\\d+)/g, (text, port) => portNames[port] ?? text)
            .replace(/\\b\\d+ ms\\b/g, '4 ms')
            .replace(/#(\\d+)/g, (_m, n) => '#' + (Number(n) - first));
        }
      })()`);
      await page.setViewportSize({ width: 1280, height: 900 });
      // the top of the page down to the end of the delivery log
      const bottom = Number(
        await page.evaluate(
          "Math.ceil(document.getElementById('log').getBoundingClientRect().bottom + window.scrollY)",
        ),
      );
      await page.screenshot({
        path: 'docs/inspector.png',
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: bottom },
      });
    }
  });

  it('labels every form field and gives every table its column headers', async () => {
    await page.goto(url);
    const unlabelled = await page.evaluate(
      "[...document.querySelectorAll('input, select, textarea')].filter((el) => el.labels.length === 0).map((el) => el.name)",
    );
    expect(unlabelled).toEqual([]);
    const headless = await page.evaluate(
      "[...document.querySelectorAll('table')].filter((t) => !t.querySelector('thead th[scope=col]') || !t.caption).map((t) => t.id)",
    );
    expect(headless).toEqual([]);
  });

  it('made no request outside the emulator and logged no console error', () => {
    expect(blocked).toEqual([]);
    // Chromium reports every 4xx answer to fetch as "Failed to load resource"; the tests above
    // provoked exactly these (shown inline on the page): anything else is a real error
    const provoked = /^Failed to load resource: the server responded with a status of (400|409) /;
    expect(consoleErrors.filter((text) => !provoked.test(text))).toEqual([]);
    // 3 from the trigger forms, 2 from the configuration form (its 400 and 409)
    expect(consoleErrors.filter((text) => provoked.test(text))).toHaveLength(5);
  });
});
