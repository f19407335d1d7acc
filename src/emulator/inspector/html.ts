import {
  WEBHOOK_CONFIG_URL_FIELDS,
  CHATBOT_MESSAGE_TYPES,
  MESSAGE_CONTENT_TYPES,
  PARTNER_EVENT_TYPES,
  SESSION_STATUS_STRINGS,
  WEBHOOK_TYPES,
} from '../../schemas/index.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import { PARTNER_EVENT_EXAMPLES } from '../examples.js';
import { maskUrl } from '../../util/secrets.js';
import {
  deliveryNotes,
  FIRST_PAGE,
  logPage,
  type ConversationView,
  type InspectorPage,
  type InspectorView,
  type LogQuery,
} from './model.js';
import { customerOf, deliveryContent } from './summary.js';

/** Escapes text for HTML content and attribute values. */
type Cell = string | number | boolean | null | undefined;
const esc = (value: Cell): string => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const time = (ms: number | null): string =>
  ms === null ? '' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
const table = (id: string, caption: string, heads: readonly string[], rows: readonly string[]): string =>
  `<table id="${id}"><caption>${esc(caption)}</caption><thead><tr>${heads
    .map((h) => `<th scope="col">${esc(h)}</th>`)
    .join(
      '',
    )}</tr></thead><tbody>${rows.join('') || `<tr><td colspan="${heads.length}">None</td></tr>`}</tbody></table>`;
/** A table row of escaped cells; `extra` is one more cell of markup the caller already escaped. */
const row = (cells: readonly Cell[], extra?: string): string =>
  `<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join('')}${extra === undefined ? '' : `<td>${extra}</td>`}</tr>`;
const options = (values: readonly string[], selected?: string, labels?: readonly string[]): string =>
  values
    .map(
      (v, i) =>
        `<option value="${esc(v)}"${v === selected ? ' selected' : ''}>${esc(labels?.[i] ?? v)}</option>`,
    )
    .join('');
const select = (label: string, name: string, values: readonly string[], labels?: readonly string[]): string =>
  `<label>${label} <select name="${name}">${options(values, undefined, labels)}</select></label>`;
const input = (label: string, name: string, attrs = ''): string =>
  `<label>${label} <input name="${name}" ${attrs}></label>`;
const form = (title: string, path: string, fields: string): string =>
  `<form class="trigger" data-post="${esc(path)}"><fieldset><legend>${esc(title)}</legend>${fields}<button>Send</button><output class="result" aria-live="polite"></output></fieldset></form>`;

const shown = (url: string | undefined): string =>
  url === undefined ? '(unset)' : url.trim() === '' ? '"" (disabled)' : url;

const PARTNER_EXAMPLES = PARTNER_EVENT_EXAMPLES;

/** The query keys that place the state tables (the chat filter and the cursors). */
const STATE_KEYS = [
  'chats',
  'customer',
  'chatsBefore',
  'messagesBefore',
  'widgetsBefore',
  'agentsAfter',
  'conversation',
  'reveal',
] as const;

/** A time of day (emulator clock), to the millisecond: the log's column. */
const clockTime = (ms: number): string => new Date(ms).toISOString().slice(11, 23);

/**
 * A table's pager: how many rows it has, which are shown, and links to its first and next page.
 * The links carry the rest of the query, so the other tables stay where they are.
 */
function pager<T>(
  id: string,
  what: string,
  rows: InspectorPage<T>,
  param: (typeof STATE_KEYS)[number],
  query: LogQuery,
  order: string,
): string {
  const href = (value: string | undefined): string => {
    const params = new URLSearchParams();
    for (const key of ['type', 'state', 'number', ...STATE_KEYS] as const) {
      const current = key === param ? value : query[key];
      if (current !== undefined) params.set(key, String(current));
    }
    const search = params.toString();
    return `/_emulator${search === '' ? '' : `?${search}`}#${id}`;
  };
  const link = (value: string | undefined, label: string): string =>
    `<a href="${esc(href(value))}" data-param="${param}" data-value="${esc(value ?? '')}">${esc(label)}</a>`;
  const first = query[param] === undefined ? '' : link(undefined, `First ${what}`);
  const next =
    rows.next === null ? '' : link(rows.next, order === 'newest first' ? `Older ${what}` : `More ${what}`);
  return `<nav class="pager" id="${id}" aria-label="${esc(`${what} pages`)}"><span>${rows.total} ${esc(what)}; ${rows.rows.length} shown, ${esc(order)}</span> ${first} ${next}</nav>`;
}

/** The parts of the page that follow the state; each is one element, by id (the script swaps them). */
export function stateParts(
  view: InspectorView,
  query: LogQuery = FIRST_PAGE,
): Record<'clock' | 'scope' | 'configs' | 'chat' | 'lists', string> {
  const scope = view.numbers.map(
    (n) =>
      `<tr><th scope="row">${esc(n.msisdn)}</th><td>${esc(n.clientRef)}</td><td class="ids"><span class="block">link ${esc(n.linkId)}</span><span class="block">number ${esc(n.messagingNumberId)}</span></td><td>${esc(n.kind === 'lite' ? 'Lite' : 'Cloud')}${
        n.session === null ? '' : `<span class="block">session ${esc(n.session)}</span>`
      }${n.flaggedUntil === null ? '' : `<span class="block">flagged until ${esc(time(n.flaggedUntil))}</span>`}</td>${WEBHOOK_TYPES.map(
        (t) => {
          const r = n.routes[t];
          return `<td data-type="${t}"><span class="url">${esc(r.url ?? '(none)')}</span> <span class="reason">${esc(r.reason)}</span></td>`;
        },
      ).join('')}</tr>`,
  );
  const keyOf = (clientRef: string): string | undefined =>
    view.keys.find((k) => k.clientRef === clientRef)?.apiKey;
  const configs = view.configs.map((c) => {
    const key = keyOf(c.clientRef);
    // the client's seed key authenticates the call; Edit fetches the configuration as stored
    const actions =
      key === undefined
        ? '(no seed key for this client)'
        : `<button data-edit-config="${esc(c.id)}" data-key="${esc(key)}" aria-label="Edit configuration ${esc(c.id)}">Edit</button> <button data-delete-config="${esc(c.id)}" data-key="${esc(key)}" aria-label="Delete configuration ${esc(c.id)}">Delete</button>`;
    const urls = WEBHOOK_CONFIG_URL_FIELDS.map(
      (field) =>
        `<span class="block"><span class="field">${esc(field)}</span> <span class="url">${esc(shown(c[field]))}</span></span>`,
    ).join('');
    const chatbot = [
      `chatbotPayloadVersion ${c.chatbotPayloadVersion ?? 'v1 (default)'}`,
      `chatbotIncludeOutgoing ${c.chatbotIncludeOutgoing ? 'yes' : 'no'}`,
      `chatbotStopOnAgentAssignment ${c.chatbotStopOnAgentAssignment ? 'yes' : 'no'}`,
    ]
      .map((line) => `<span class="block">${esc(line)}</span>`)
      .join('');
    return `<tr><td><span class="block">${esc(c.clientRef)}</span><span class="block">${esc(
      c.messagingNumberId === null ? 'client default' : `override ${c.messagingNumberMsisdn ?? ''}`,
    )}</span><span class="block id">${esc(c.id)}</span></td><td>${urls}</td><td>${chatbot}</td><td class="actions">${actions}</td></tr>`;
  });
  const messages = view.messages.rows.map(
    (m) =>
      `<tr>${[m.gstId, m.number, m.to, m.voice ? 'voice' : 'text', m.status].map((c) => `<td>${esc(c)}</td>`).join('')}<td>${
        m.next.length === 0
          ? 'final'
          : `<form class="trigger" data-post="/_emulator/messages/${esc(m.gstId)}/status"><label>Next status of ${esc(m.gstId)} <select name="status">${options(m.next)}</select></label> <button>Set</button><output class="result" aria-live="polite"></output></form>`
      }</td></tr>`,
  );
  return {
    clock: `<p id="clock-view">Emulator clock: <time>${esc(time(view.clock))}</time></p>`,
    scope: `<div id="scope-view">${
      view.configs.length === 0
        ? '<p class="empty" id="no-config-scope">Nothing is configured yet, so no event goes anywhere: ' +
          '<a href="#configs">configure a webhook</a> (a client default sends every number\'s events) ' +
          'or start the emulator with <code>--forward-to &lt;receiver-url&gt;</code>.</p>'
        : ''
    }${table(
      'scope-table',
      'Where an event of each type on each number goes, and why (scope rules)',
      ['Number', 'Client', 'Link id and number id (messagingNumberId)', 'Kind and session', ...WEBHOOK_TYPES],
      scope,
    )}</div>`,
    configs: `<div id="configs-view">${
      view.configs.length === 0
        ? '<p id="no-config" class="empty"><strong>No webhook configured yet</strong>: events are not sent anywhere. ' +
          'Create a client default with the form below (only the URLs you want), ' +
          'or start the emulator with <code>messaging-webhooks emulator --forward-to http://localhost:3000/webhooks</code> ' +
          "to send every type to your receiver's paths.</p>"
        : ''
    }${table(
      'configs-table',
      'Webhook configurations, in List order per client',
      ['Client, scope and id', 'URLs', 'Chatbot events', 'Change'],
      configs,
    )}</div>`,
    chat: `<div id="chat-view">${table(
      'chats-table',
      'Chats',
      [
        'Chat participant id',
        'Client',
        'Number',
        'Customer',
        'Assigned agent',
        'Status',
        'Closed',
        'Conversation',
      ],
      view.chats.rows.map((c) =>
        row(
          [c.id, c.clientRef, c.number, c.customer, c.agent ?? '(none)', c.status, c.closed ? 'yes' : 'no'],
          `<button data-conversation="${esc(c.id)}" aria-label="Show the conversation of chat ${esc(c.id)}">Show</button>`,
        ),
      ),
    )}${pager('chats-pager', 'chats', view.chats, 'chatsBefore', query, 'newest first')}${table(
      'agents-table',
      'Agents',
      ['Name', 'Client', 'Live-chat role', 'Available', 'Open chats', 'Chat limit'],
      view.agents.rows.map((a) =>
        row([a.name, a.clientRef, a.liveChatRole, a.available ? 'yes' : 'no', a.openChats, a.chatLimit]),
      ),
    )}${pager('agents-pager', 'agents', view.agents, 'agentsAfter', query, 'in creation order')}${table(
      'widgets-table',
      'Rating widgets triggered',
      ['Chat', 'Agent rated', 'Terminated by', 'Time'],
      view.ratingWidgets.rows.map((w) => row([w.chat, w.agent ?? '(none)', w.by, w.time])),
    )}${pager('widgets-pager', 'rating widgets', view.ratingWidgets, 'widgetsBefore', query, 'newest first')}${table('messages-table', 'Outbound messages', ['gstId', 'From number', 'To', 'Kind', 'Status', 'Next status'], messages)}${pager('messages-pager', 'outbound messages', view.messages, 'messagesBefore', query, 'newest first')}</div>`,
    lists: `<div id="datalists"><datalist id="open-chats">${view.openChats
      .map((c) => `<option value="${esc(c.id)}">${esc(`${c.customer} on ${c.number}`)}</option>`)
      .join('')}</datalist></div>`,
  };
}

/**
 * The conversation view of one chat (or, with none chosen, how to choose one): the customer's
 * messages on the left, the business's on the right, handovers and closure across, each step with
 * the deliveries it was built from (their sequence numbers open them).
 */
export function conversationPart(view: ConversationView | undefined, chosen: string | undefined): string {
  if (view === undefined) {
    return `<div id="conversation-view"><p class="empty">${
      chosen === undefined
        ? 'Choose a chat with its <strong>Show</strong> button in the chats table below to read it as a conversation.'
        : `No chat ${esc(chosen)} in the emulator.`
    }</p></div>`;
  }
  const { chat } = view;
  const steps = view.items.map((item) => {
    const refs = item.deliveries
      .map(
        (d) =>
          `<button class="open" data-open="${esc(d.id)}" aria-label="Open delivery ${d.sequence}">#${d.sequence}</button> <span class="delivery-state state-${esc(d.state)}">${esc(d.type)} ${esc(d.state)}${d.status === null ? '' : ` ${d.status}`}</span>`,
      )
      .join(' ');
    const receipts =
      item.receipts.length === 0
        ? ''
        : `<span class="receipts" aria-label="status receipts">${item.receipts.map((r) => `<span class="receipt">${esc(r)}</span>`).join(' → ')}</span>`;
    const when = Number.isNaN(item.time) ? '' : `<time>${esc(clockTime(item.time))}</time> `;
    return `<li class="step ${item.side} ${item.kind}"><p class="said">${esc(item.text)}</p>${receipts}<p class="meta">${when}${refs}</p></li>`;
  });
  return `<div id="conversation-view"><h3 id="h-conversation-chat">${esc(`${chat.customer} ↔ ${chat.number}`)}</h3><p class="chat-facts">Chat <code>${esc(chat.id)}</code>, ${esc(chat.status)}${chat.closed ? ', closed' : ''}; ${chat.agent === null ? 'no agent assigned' : `agent ${esc(chat.agent)}`}. <button id="conversation-close">Close</button></p>${
    steps.length === 0
      ? '<p class="empty">No delivery of this chat in the log yet (is a webhook configured?).</p>'
      : `<ol class="conversation" aria-labelledby="h-conversation-chat">${steps.join('')}</ol>`
  }</div>`;
}

function marks(
  entry: DeliveryLogEntry,
  sequenceOf: (id: string) => string,
  notes: ReturnType<typeof deliveryNotes>,
): string {
  const list: string[] = entry.faults.map((f) => (f === 'outOfOrder' ? 'out of order' : f));
  if (entry.duplicateOf !== null) list.push(`duplicate of #${sequenceOf(entry.duplicateOf)}`);
  if (entry.resendOf !== null) list.push(`resend of #${sequenceOf(entry.resendOf)}`);
  if (entry.undocumented) list.push('undocumented');
  const shownMarks = list.map((m) => `<span class="mark">${esc(m)}</span>`);
  // what the receiver said and which way a chatbot event goes: marks of their own (not faults)
  if (notes.direction !== null) {
    shownMarks.unshift(`<span class="direction">${esc(notes.direction)}</span>`);
  }
  if (notes.answeredDuplicate) {
    shownMarks.push(
      '<span class="mark answered-duplicate" title="The receiver answered {&quot;duplicate&quot;: true}: it had this event already">receiver: duplicate</span>',
    );
  }
  return shownMarks.join(' ');
}

/** The log view: filters' results, newest first, one page. */
export function logPart(log: readonly DeliveryLogEntry[], query: LogQuery): string {
  const { rows, total, page, pages } = logPage(log, query);
  const sequences = new Map(rows.map((e) => [e.id, e.sequence]));
  const sequenceOf = (id: string): string =>
    String(sequences.get(id) ?? log.find((e) => e.id === id)?.sequence ?? '?');
  const link = (to: number, label: string): string => {
    const params = new URLSearchParams({ page: String(to) });
    for (const key of ['type', 'state', 'number', ...STATE_KEYS] as const) {
      const value = query[key];
      if (value !== undefined) params.set(key, String(value));
    }
    return `<a href="/_emulator?${esc(params.toString())}#log" data-page="${to}">${label}</a>`;
  };
  const reveal = query.reveal === '1';
  const body = rows.map((e) => {
    const state = e.state === 'delivering' && e.attempts > 1 ? 'retrying' : e.state;
    const notes = deliveryNotes(e);
    const failure = e.state === 'delivered' ? null : notes.failure;
    const why = failure === null ? '' : ` <span class="why">${esc(failure)}</span>`;
    const customer = customerOf(e.type, e.payload);
    const answer = [
      e.responseStatus === null ? (e.error === null ? '' : 'no answer') : `HTTP ${e.responseStatus}`,
      e.latencyMs === null ? '' : `${e.latencyMs} ms`,
      e.attempts > 1 ? `${e.attempts} attempts` : '',
    ]
      .filter((part) => part !== '')
      .join(', ');
    return `<tr class="${e.faults.length > 0 || e.duplicateOf !== null ? 'fault' : ''}"><td><button class="open" data-open="${e.id}" aria-label="Open delivery ${e.sequence}">#${e.sequence}</button></td><td><time title="${esc(time(e.emittedAt))}">${esc(clockTime(e.emittedAt))}</time></td><td>${esc(e.type)}</td><td><span class="block">${esc(e.messagingNumber)}</span>${
      customer === undefined ? '' : `<span class="block customer">${esc(customer)}</span>`
    }</td><td class="content">${esc(deliveryContent(e.type, e.payload))}</td><td class="url">${esc(
      reveal ? e.url : maskUrl(e.url),
    )}</td><td class="state-${esc(state)}">${esc(state)}${why}</td><td>${esc(answer)}</td><td>${marks(
      e,
      sequenceOf,
      notes,
    )}</td><td><button data-resend="${e.id}" aria-label="Resend delivery ${e.sequence}">Resend</button></td></tr>`;
  });
  const first = total === 0 ? 0 : page * query.size + 1;
  return `<div id="log-view" data-page="${page}"><p>${total} deliveries${total === 0 ? '' : `; ${first}–${first + rows.length - 1} shown, newest first`} (page ${page + 1} of ${pages})</p>
${table('log-table', 'Delivery log', ['#', 'Emitted (UTC)', 'Type', 'Number and customer', 'Content', 'URL', 'State', "Receiver's answer", 'Faults and marks', 'Resend'], body)}
<nav aria-label="Log pages">${page > 0 ? link(0, 'Newest') + ' ' + link(page - 1, 'Newer') : ''} ${page < pages - 1 ? link(page + 1, 'Older') : ''}</nav></div>`;
}

/**
 * The configuration form: create (POST) or, after a row's Edit, update (PUT) through the
 * emulator's own configuration API at `api`, authenticated by the client's seed key; its errors
 * are the API's, shown under the form.
 */
function configForm(view: InspectorView, api: string): string {
  const clients = new Map<string, string>();
  for (const k of view.keys) if (!clients.has(k.clientRef)) clients.set(k.clientRef, k.apiKey);
  const tri = (name: string, unset: string): string =>
    `<label>${name} <select name="${name}"><option value="">${esc(unset)}</option><option value="true">true</option><option value="false">false</option></select></label>`;
  return `<form id="config-form" data-api="${esc(api)}"><fieldset><legend id="config-legend">New webhook configuration</legend>
<label>Client (its seed API key authenticates the call) <select name="key">${options(
    [...clients.values()],
    undefined,
    [...clients].map(([ref, key]) => `client ${ref} (${key})`),
  )}</select></label>
<label>Scope <select name="messagingNumberId">${options(
    ['', ...view.numbers.map((n) => n.messagingNumberId)],
    undefined,
    [
      'client default (every number without an override)',
      ...view.numbers.map((n) => `override for ${n.msisdn} (client ${n.clientRef})`),
    ],
  )}</select></label>
<div class="urls">${WEBHOOK_CONFIG_URL_FIELDS.map(
    (field) =>
      `<label>${field} <input name="${field}" placeholder="unset" spellcheck="false"></label><label class="disable"><input type="checkbox" name="disable.${field}"> disable ${field} (sends "", rule 4)</label>`,
  ).join('')}</div>
${tri('chatbotIncludeOutgoing', 'unset (false)')}${tri('chatbotStopOnAgentAssignment', 'unset (false)')}<label>chatbotPayloadVersion <select name="chatbotPayloadVersion"><option value="">unset (v1)</option><option value="v1">v1</option><option value="v2">v2</option></select></label>
<button id="config-save">Create</button> <button type="button" id="config-new" hidden>New configuration instead</button>
<output id="config-result" class="result" aria-live="polite"></output></fieldset></form>`;
}

/** The whole page. `api` is the configuration API's path (with the messaging prefix). */
export function page(
  view: InspectorView,
  log: readonly DeliveryLogEntry[],
  query: LogQuery,
  url: string,
  api: string,
  conversation: ConversationView | undefined,
): string {
  const parts = {
    ...stateParts(view, query),
    conversation: conversationPart(conversation, query.conversation),
  };
  const numbers = view.numbers.map((n) => n.msisdn);
  const lite = view.numbers.filter((n) => n.kind === 'lite').map((n) => n.msisdn);
  const numberSelect = (name: string, values = numbers): string => select('Your number', name, values);
  const chat = input('Chat participant id', 'chatParticipantId', 'list="open-chats" required');
  const agents = view.agents.rows.map((a) => a.id);
  const filterSelect = (
    label: string,
    name: 'type' | 'state' | 'number',
    values: readonly string[],
  ): string =>
    `<label>${label} <select name="${name}"><option value="">any</option>${options(values, query[name])}</select></label>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Emulator inspector</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/_emulator/inspector/app.css">
<script src="/_emulator/inspector/app.js" defer></script></head>
<body><header><h1>Emulator inspector</h1><p>Emulator at <code>${esc(url)}</code>. JSON: <a href="/_emulator/inspector/view">view model</a>, <a href="/_emulator/deliveries">deliveries</a>, <a href="/_emulator/openapi.json">OpenAPI document</a>.</p>
<nav aria-label="Sections"><a href="#numbers">Numbers and scope</a> <a href="#configs">Configurations</a> <a href="#log">Delivery log</a> <a href="#conversation">Conversation</a> <a href="#triggers">Triggers</a> <a href="#live-chat">Live chat and users</a> <a href="#keys">API keys</a></nav>
<p id="secrets">${
    query.reveal === '1'
      ? 'Tokens and keys in URLs are shown. <button id="reveal" aria-pressed="true">Mask secrets</button>'
      : 'Tokens and keys in URLs are masked (****). <button id="reveal" aria-pressed="false">Reveal secrets</button>'
  }</p></header>
<main>
<section id="numbers" aria-labelledby="h-numbers"><h2 id="h-numbers">Numbers and scope</h2>
<p>For each number and webhook type: the URL an event would be POSTed to, and the scope rule that decides it.</p>
${parts.clock}${parts.scope}
</section>
<section id="configs" aria-labelledby="h-configs"><h2 id="h-configs">Configurations</h2>${parts.configs}
${configForm(view, api)}</section>
<section id="log" aria-labelledby="h-log"><h2 id="h-log">Delivery log <span id="live" role="status"></span></h2>
<form id="log-filter" method="get" action="/_emulator">${filterSelect('Type', 'type', WEBHOOK_TYPES)} ${filterSelect('State', 'state', ['queued', 'held', 'delivering', 'delivered', 'failed'])} ${filterSelect('Number', 'number', numbers)} <button>Filter</button></form>
${logPart(log, query)}
<section id="detail" aria-labelledby="h-detail" hidden><h3 id="h-detail" tabindex="-1">Delivery</h3>
<h4>Payload</h4><pre id="detail-payload"></pre><button data-copy="detail-payload">Copy payload</button> <a id="detail-fixture" download>Export as fixture</a> <span class="hint">(one JSON line of the capture format: <code>replay</code> and the testing helpers read it)</span>
<h4>Receiver's response</h4><pre id="detail-response"></pre><button data-copy="detail-response">Copy response</button> <button id="detail-close">Close</button></section>
<output id="resend-result" aria-live="polite"></output>
</section>
<section id="conversation" aria-labelledby="h-conversation"><h2 id="h-conversation">Conversation</h2>${parts.conversation}</section>
<section id="triggers" aria-labelledby="h-triggers"><h2 id="h-triggers">Triggers</h2><p>Each form posts to the <code>/_emulator</code> control routes; errors show below the form.</p><div class="forms">
${form('Customer message', '/_emulator/customer-message', `${numberSelect('number')}${input('From (E.164)', 'from', 'value="+27831234567" required')}${select('Content type', 'contentType', MESSAGE_CONTENT_TYPES)}${input('Text', 'text', 'value="Hi"')}${input('Reacted-to gstId (REACTION)', 'reactedToGstId')}`)}
${form('Bot reply', '/_emulator/bot-reply', `${chat}${select('Message type', 'messageType', CHATBOT_MESSAGE_TYPES)}${input('Text', 'messageText', 'value="How can I help?"')}`)}
${form('Assign agent', '/_emulator/assign-agent', `${chat}${select('Agent', 'userId', ['', ...agents], ['available agent with fewest chats', ...view.agents.rows.map((a) => `${a.name} (${a.clientRef})`)])}<label><input type="checkbox" name="notify"> Emit chatbot assignment event</label>`)}
${form('Unassign agent', '/_emulator/unassign-agent', chat)}
${form('Outbound message', '/_emulator/messages', `${numberSelect('number')}${input('To (E.164)', 'to', 'value="+27831234567" required')}<label><input type="checkbox" name="voice"> Voice note</label>${input('Template name (optional)', 'template.name')}`)}
${form('Session change (Lite numbers)', '/_emulator/sessions', `${numberSelect('number', lite)}${select('Status', 'status', SESSION_STATUS_STRINGS)}`)}
${form('Flag number (Lite numbers)', '/_emulator/flag-number', `${numberSelect('number', lite)}${input('Flag period (ms)', 'durationMs', 'type="number" min="1" max="86400000" value="3600000"')}`)}
${form('Partner event', '/_emulator/partner-events', `<label>Event type <select name="eventType" data-examples="${esc(JSON.stringify(PARTNER_EXAMPLES))}">${options(PARTNER_EVENT_TYPES)}</select></label>${numberSelect('messagingNumber')}<label>Fields (JSON) <textarea name="fields" data-json rows="3">${esc(JSON.stringify(PARTNER_EXAMPLES.PHONE_QUALITY_CHANGED))}</textarea></label>`)}
${form('Advance clock', '/_emulator/clock/advance', input('Milliseconds', 'ms', 'type="number" min="0" value="60000" required'))}
${form('Fault for the next deliveries', '/_emulator/faults', `${select('Fault', 'fault.kind', ['duplicate', 'outOfOrder', 'delay', 'fail'])}${input('Delay (ms, delay only)', 'fault.ms', 'type="number" min="0" max="60000"')}${select('Webhook type', 'type', ['', ...WEBHOOK_TYPES], ['any', ...WEBHOOK_TYPES])}${input('Count', 'count', 'type="number" min="1" value="1"')}`)}
${form('Reset to the seed', '/_emulator/reset', '')}
</div></section>
<section id="live-chat" aria-labelledby="h-chat"><h2 id="h-chat">Live chat and users</h2>
<form id="chat-filter" method="get" action="/_emulator"><label>Chats <select name="chats">${options(['', 'open', 'closed'], query.chats ?? '', ['all', 'open', 'closed'])}</select></label> <label>Customer (phone number) <input name="customer" value="${esc(query.customer)}"></label> <button>Filter chats</button></form>
${parts.chat}${parts.lists}</section>
<section id="keys" aria-labelledby="h-keys"><h2 id="h-keys">API keys</h2>${table(
    'keys-table',
    'API keys of the seed (send as the Authorization header)',
    ['API key', 'E-mail', 'Role', 'Client'],
    view.keys.map((k) => row([k.apiKey, k.email, k.role, k.clientRef])),
  )}</section>
</main></body></html>`;
}
