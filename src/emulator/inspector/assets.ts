/*
 * The inspector page's one script and its stylesheet, inlined as strings so the package needs no
 * asset files at run time (ESM and CommonJS entries alike) and the page works offline. The script
 * enhances server-rendered HTML: the server renders every table; the script fetches re-rendered
 * parts (on Server-Sent Events and after a form), posts the forms as JSON and shows their answers.
 */

/** The page script (plain browser JavaScript, no build step). */
export const SCRIPT = String.raw`'use strict';
(function () {
  var byId = function (id) { return document.getElementById(id); };
  var query = new URLSearchParams(location.search);
  var busy = null;
  var again = false;

  function swap(html) {
    var active = document.activeElement;
    var keep = active && active.dataset && (active.dataset.open ? '[data-open="' + active.dataset.open + '"]'
      : active.dataset.resend ? '[data-resend="' + active.dataset.resend + '"]' : active.dataset.page ? '[data-page="' + active.dataset.page + '"]'
      : active.dataset.param ? '[data-param="' + active.dataset.param + '"]'
      : active.dataset.conversation ? '[data-conversation="' + active.dataset.conversation + '"]' : null);
    var doc = new DOMParser().parseFromString('<body>' + html + '</body>', 'text/html');
    Array.prototype.slice.call(doc.body.children).forEach(function (el) {
      var old = el.id && byId(el.id);
      if (old) old.replaceWith(el);
    });
    var target = keep && document.querySelector(keep);
    if (target && active !== document.activeElement) target.focus();
  }
  function get(path) {
    return fetch(path, { headers: { accept: 'text/html' } }).then(function (r) {
      if (!r.ok) throw new Error(r.status + ' on ' + path);
      return r.text();
    });
  }
  function refresh() {
    if (busy) { again = true; return busy; }
    again = false;
    busy = Promise.all([get('/_emulator/inspector/state?' + query), get('/_emulator/inspector/log?' + query)])
      .then(function (parts) { swap(parts[0]); swap(parts[1]); byId('live').textContent = '(live)'; })
      .catch(function (error) { byId('live').textContent = '(' + error.message + ')'; })
      .then(function () { busy = null; if (again) refresh(); });
    return busy;
  }
  function setPage(params, anchor) {
    query = params;
    history.replaceState(null, '', '/_emulator' + (String(query) ? '?' + query : '') + '#' + (anchor || 'log'));
    refresh();
  }
  /** The current query with the keys of one filter form replaced by the form's values. */
  function filtered(form, keys) {
    var params = new URLSearchParams(query);
    keys.forEach(function (key) { params.delete(key); });
    new FormData(form).forEach(function (value, key) { if (value) params.set(key, value); });
    return params;
  }
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function show(out, status, text) {
    out.textContent = status + (text ? '\n' + pretty(text) : '');
    out.className = 'result ' + (/^2/.test(status) ? 'ok' : 'error');
  }
  /** A JSON call (a body only when given, an API key when given): its status line, ok and text. */
  function call(method, path, body, key) {
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (key !== undefined) headers.authorization = key;
    return fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (r) { return r.text().then(function (text) { return { status: r.status + ' ' + r.statusText, ok: r.ok, text: text }; }); });
  }
  function post(path, body) {
    return call('POST', path, body);
  }
  function formBody(form) {
    var body = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name) return;
      if (el.hasAttribute('data-json')) { Object.assign(body, JSON.parse(el.value || '{}')); return; }
      if (el.type !== 'checkbox' && el.value === '') return;
      var value = el.type === 'checkbox' ? el.checked : el.type === 'number' ? Number(el.value) : el.value;
      var keys = el.name.split('.');
      var target = body;
      keys.slice(0, -1).forEach(function (key) { target = target[key] = target[key] || {}; });
      target[keys[keys.length - 1]] = value;
    });
    return body;
  }
  /** The configuration form's body: URLs given (or "" to disable), flags and version when chosen. */
  function configBody(form) {
    var el = form.elements;
    var body = {};
    if (form.dataset.id) body.id = form.dataset.id;
    else if (el.messagingNumberId.value) body.messagingNumberId = el.messagingNumberId.value;
    ['incomingMessageURL', 'statusUpdateURL', 'sessionStatusURL', 'eventWebhookURL', 'chatbotWebhookURL'].forEach(function (name) {
      if (el['disable.' + name].checked) body[name] = '';
      else if (el[name].value.trim()) body[name] = el[name].value.trim();
    });
    ['chatbotIncludeOutgoing', 'chatbotStopOnAgentAssignment'].forEach(function (name) {
      if (el[name].value) body[name] = el[name].value === 'true';
    });
    if (el.chatbotPayloadVersion.value) body.chatbotPayloadVersion = el.chatbotPayloadVersion.value;
    return body;
  }
  /** Back to creating: the form forgets the configuration it was editing. */
  function newConfig(form) {
    delete form.dataset.id;
    byId('config-legend').textContent = 'New webhook configuration';
    byId('config-save').textContent = 'Create';
    byId('config-new').hidden = true;
    form.elements.messagingNumberId.disabled = false;
  }
  /** Edit: the configuration as stored (tokens included) is fetched on this explicit request. */
  function editConfig(button) {
    fetch('/_emulator/inspector/configs/' + encodeURIComponent(button.dataset.editConfig)).then(function (r) {
      if (!r.ok) throw new Error(r.status + ' ' + r.statusText);
      return r.json();
    }).then(function (config) { fillConfig(button, config); }, function (error) { show(byId('config-result'), 'Not loaded', error.message); });
  }
  function fillConfig(button, config) {
    var form = byId('config-form');
    var el = form.elements;
    form.dataset.id = config.id;
    el.key.value = button.dataset.key;
    el.messagingNumberId.value = config.messagingNumberId || '';
    // scope rule 7: an update cannot change the scope
    el.messagingNumberId.disabled = true;
    ['incomingMessageURL', 'statusUpdateURL', 'sessionStatusURL', 'eventWebhookURL', 'chatbotWebhookURL'].forEach(function (name) {
      el[name].value = config[name] || '';
      el['disable.' + name].checked = config[name] === '';
    });
    el.chatbotIncludeOutgoing.value = String(config.chatbotIncludeOutgoing);
    el.chatbotStopOnAgentAssignment.value = String(config.chatbotStopOnAgentAssignment);
    el.chatbotPayloadVersion.value = config.chatbotPayloadVersion || '';
    byId('config-legend').textContent = 'Update configuration ' + config.id + ' (its scope cannot change: rule 7)';
    byId('config-save').textContent = 'Update';
    byId('config-new').hidden = false;
    byId('config-result').textContent = '';
    form.scrollIntoView({ block: 'nearest' });
    el.incomingMessageURL.focus();
  }
  /** A call of the configuration API with a seed key: its answer shown in the form's output. */
  function configCall(method, path, key, body) {
    var out = byId('config-result');
    return call(method, path, body, key).then(function (answer) {
      show(out, answer.status, answer.text);
      if (answer.ok) refresh();
      return answer.ok;
    }, function (error) { show(out, 'Not sent', error.message); return false; });
  }

  function openDelivery(id) {
    var path = '/_emulator/inspector/deliveries/' + encodeURIComponent(id);
    fetch(path + (query.get('reveal') === '1' ? '?reveal=1' : '')).then(function (r) { return r.json(); }).then(function (e) {
      byId('detail-fixture').href = path + '/fixture';
      byId('h-detail').textContent = 'Delivery #' + e.sequence + ': ' + e.type + ' to ' + e.url;
      byId('detail-payload').textContent = JSON.stringify(e.payload, null, 2);
      byId('detail-response').textContent = 'Status: ' + (e.responseStatus === null ? 'none' : e.responseStatus) +
        '; attempts: ' + e.attempts + '; state: ' + e.state + (e.latencyMs === null ? '' : '; ' + e.latencyMs + ' ms') +
        (e.error ? '\nError: ' + e.error : '') + (e.responseBody ? '\n' + pretty(e.responseBody) : '');
      byId('detail').hidden = false;
      byId('h-detail').focus();
    });
  }

  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (form.id === 'log-filter') {
      ev.preventDefault();
      setPage(filtered(form, ['type', 'state', 'number', 'page']));
      return;
    }
    if (form.id === 'chat-filter') {
      ev.preventDefault();
      setPage(filtered(form, ['chats', 'customer', 'chatsBefore']), 'live-chat');
      return;
    }
    if (form.id === 'config-form') {
      ev.preventDefault();
      configCall(form.dataset.id ? 'PUT' : 'POST', form.dataset.api, form.elements.key.value, configBody(form));
      return;
    }
    if (!form.dataset.post) return;
    ev.preventDefault();
    var out = form.querySelector('output') || byId(form.dataset.output);
    var body;
    try { body = formBody(form); } catch (error) { show(out, 'Not sent', error.message); return; }
    post(form.dataset.post, body).then(function (answer) {
      show(out, answer.status, answer.text);
      if (answer.ok) refresh();
    }, function (error) { show(out, 'Not sent', error.message); });
  });
  document.addEventListener('change', function (ev) {
    var el = ev.target;
    if (el.dataset.examples) el.form.elements.fields.value = JSON.stringify(JSON.parse(el.dataset.examples)[el.value]);
  });
  document.addEventListener('click', function (ev) {
    var el = ev.target.closest('button, a[data-page], a[data-param]');
    if (!el) return;
    if (el.dataset.page !== undefined) {
      ev.preventDefault();
      var params = new URLSearchParams(query);
      params.set('page', el.dataset.page);
      setPage(params);
    } else if (el.dataset.param !== undefined) {
      // a state table's pager: its cursor changes, the other tables and the log stay
      ev.preventDefault();
      var moved = new URLSearchParams(query);
      if (el.dataset.value) moved.set(el.dataset.param, el.dataset.value);
      else moved.delete(el.dataset.param);
      setPage(moved, 'live-chat');
    } else if (el.id === 'reveal') {
      // a reload: the page is rendered again, masked or not, with the rest of the query kept
      var toggled = new URLSearchParams(query);
      if (toggled.get('reveal') === '1') toggled.delete('reveal'); else toggled.set('reveal', '1');
      location.assign('/_emulator' + (String(toggled) ? '?' + toggled : '') + location.hash);
    } else if (el.dataset.conversation) {
      var chosen = new URLSearchParams(query);
      chosen.set('conversation', el.dataset.conversation);
      setPage(chosen, 'conversation');
      refresh().then(function () { byId('conversation').scrollIntoView({ block: 'start' }); var h = byId('h-conversation-chat'); if (h) { h.tabIndex = -1; h.focus(); } });
    } else if (el.id === 'conversation-close') {
      var closed = new URLSearchParams(query);
      closed.delete('conversation');
      setPage(closed, 'conversation');
    } else if (el.dataset.editConfig) {
      editConfig(el);
    } else if (el.dataset.deleteConfig) {
      var form = byId('config-form');
      var id = el.dataset.deleteConfig;
      configCall('DELETE', form.dataset.api + '/' + encodeURIComponent(id), el.dataset.key).then(function (ok) {
        if (ok && form.dataset.id === id) newConfig(form);
      });
    } else if (el.id === 'config-new') {
      newConfig(byId('config-form'));
    } else if (el.dataset.open) {
      openDelivery(el.dataset.open);
    } else if (el.dataset.resend) {
      post('/_emulator/deliveries/' + encodeURIComponent(el.dataset.resend) + '/resend', {}).then(function (answer) {
        show(byId('resend-result'), answer.status, answer.ok ? '' : answer.text);
        if (answer.ok) refresh();
      });
    } else if (el.dataset.copy) {
      var text = byId(el.dataset.copy).textContent;
      var done = function () { el.textContent = 'Copied'; };
      (navigator.clipboard ? navigator.clipboard.writeText(text) : Promise.reject(new Error('no clipboard'))).then(done, function () {
        getSelection().selectAllChildren(byId(el.dataset.copy));
        el.textContent = 'Selected: press Ctrl+C';
      });
    } else if (el.id === 'detail-close') {
      byId('detail').hidden = true;
    }
  });

  var live = byId('live');
  if (window.EventSource) {
    var events = new EventSource('/_emulator/inspector/events');
    events.onopen = function () { live.textContent = '(live)'; };
    events.onerror = function () { live.textContent = '(reconnecting)'; };
    events.onmessage = function () {
      if (query.get('page') && query.get('page') !== '0') { live.textContent = '(new deliveries: see Newest)'; get('/_emulator/inspector/state?' + query).then(swap); }
      else refresh();
    };
  }
})();
`;

/** The page stylesheet. */
export const STYLE = `
:root { font-family: system-ui, sans-serif; font-size: 15px; color: #1b1b1b; background: #fff; }
body { margin: 0 auto; padding: 0 1rem 3rem; max-width: 110rem; }
header nav a { margin-right: 1rem; }
h2 { border-bottom: 2px solid #ccd; padding-bottom: .2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #ccd; padding: .25rem .45rem; text-align: left; vertical-align: top; font-size: .9rem; overflow-wrap: break-word; }
.url, .ids, .id, td.content { overflow-wrap: anywhere; }
#log-table td:first-child, #log-table time { white-space: nowrap; }
.block { display: block; }
td.url, td .url, td.ids, td .id { font-family: ui-monospace, monospace; font-size: .8rem; }
td[data-type] .url { font-size: .78rem; }
td .field { color: #555; font-size: .75rem; font-family: system-ui, sans-serif; }
td.actions, td:last-child button { white-space: nowrap; }
td.content { min-width: 9rem; }
.customer { color: #555; }
#secrets { font-size: .9rem; color: #333; }
.hint { font-size: .8rem; color: #555; }
ol.conversation { list-style: none; padding: 0; max-width: 60rem; }
.step { margin: .4rem 0; padding: .4rem .7rem; border-radius: .6rem; max-width: 70%; }
.step p { margin: .1rem 0; }
.step.customer { background: #eef; margin-right: auto; }
.step.business { background: #e3f4e3; margin-left: auto; text-align: right; }
.step.platform { background: none; border: 1px dashed #aab; text-align: center; max-width: none; margin: .6rem 15%; font-style: italic; }
.step .meta { font-size: .75rem; color: #555; }
.receipt { font-family: ui-monospace, monospace; font-size: .8rem; background: #fff; border: 1px solid #9c9; border-radius: .3rem; padding: 0 .3rem; }
thead th { background: #eef; }
td[data-type] .url, code { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; }
.reason { display: block; color: #555; font-size: .8rem; }
tr.fault { background: #fff4e0; }
.mark { background: #f2c46d; border-radius: .3rem; padding: 0 .3rem; font-size: .8rem; white-space: nowrap; }
.state-failed { color: #a00; font-weight: 600; } .state-delivered { color: #060; } .state-retrying { color: #a60; }
.forms { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 1rem; }
fieldset { border: 1px solid #ccd; border-radius: .4rem; }
label { display: block; margin: .3rem 0; }
input:not([type=checkbox]), select, textarea { display: block; width: 100%; box-sizing: border-box; font: inherit; }
td label, td input, td select, #log-filter label, #log-filter select, #chat-filter label, #chat-filter select, #chat-filter input { display: inline-block; width: auto; margin-right: .8rem; }
nav.pager { margin: -.5rem 0 1rem; font-size: .9rem; } nav.pager a { margin-left: .8rem; }
button { font: inherit; margin-top: .3rem; cursor: pointer; }
:focus-visible { outline: 3px solid #2a5bd7; outline-offset: 2px; }
output.result, #resend-result { display: block; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: .8rem; max-height: 15rem; overflow: auto; }
output.error { color: #a00; } output.ok { color: #060; }
pre { background: #f6f6f9; border: 1px solid #ccd; padding: .5rem; max-height: 30rem; overflow: auto; }
#detail { border: 2px solid #2a5bd7; padding: 0 1rem 1rem; border-radius: .4rem; }
.empty { background: #eef4ff; border-left: 4px solid #2a5bd7; padding: .5rem .8rem; }
.direction { background: #dde7fb; border-radius: .3rem; padding: 0 .3rem; font-size: .8rem; font-family: ui-monospace, monospace; }
.mark.answered-duplicate { background: #cfe8cf; }
.why { display: block; font-weight: normal; font-size: .8rem; }
#config-form fieldset { max-width: 60rem; }
#config-form .urls { display: grid; grid-template-columns: 1fr auto; gap: 0 1rem; align-items: end; }
#config-form label.disable { white-space: nowrap; font-size: .85rem; }
#config-form select { display: inline-block; width: auto; }
`;
