import {
  applyWebhookConfigSettings,
  chatbotPayloadVersionOf,
  compareWebhookConfigsForList,
  findScopeConflict,
  resolveWebhookConfig,
  shouldEmitChatbotEvent,
  webhookUrlFor,
  webhookUrlSchema,
  type WebhookConfig,
} from '../../src/schemas/index.js';

/* The scope rules and flags as pure functions (src/schemas/webhook-config.ts). */

const config = (overrides: Partial<WebhookConfig>): WebhookConfig => ({
  id: 'c',
  messagingNumberId: null,
  messagingNumberMsisdn: null,
  chatbotIncludeOutgoing: false,
  chatbotStopOnAgentAssignment: false,
  chatbotPayloadVersion: null,
  ...overrides,
});

const DEFAULT = config({ id: 'default', incomingMessageURL: 'https://a' });
const OVERRIDE = config({
  id: 'override',
  messagingNumberId: 'n1',
  messagingNumberMsisdn: '+2',
  incomingMessageURL: '',
});

describe('resolveWebhookConfig (scope rules 1, 2, 3, 8)', () => {
  it.each([
    {
      name: 'rule 1: default for a number without override',
      configs: [DEFAULT, OVERRIDE],
      number: 'n2',
      expected: 'default',
    },
    {
      name: 'rule 2/3: the override for its number',
      configs: [DEFAULT, OVERRIDE],
      number: 'n1',
      expected: 'override',
    },
    {
      name: 'rule 3: override found whatever the order',
      configs: [OVERRIDE, DEFAULT],
      number: 'n1',
      expected: 'override',
    },
    { name: 'rule 8: no default, no override: none', configs: [OVERRIDE], number: 'n2', expected: undefined },
    { name: 'rule 8: override deleted: default', configs: [DEFAULT], number: 'n1', expected: 'default' },
  ])('$name', ({ configs, number, expected }) => {
    expect(resolveWebhookConfig(configs, number)?.id).toBe(expected);
  });
});

describe('webhookUrlFor (rule 4 and the chatbot URL "unset or blank")', () => {
  it.each([
    [{ incomingMessageURL: 'https://x' }, 'incoming', 'https://x'],
    [{ incomingMessageURL: '' }, 'incoming', undefined],
    [{}, 'status', undefined],
    [{ chatbotWebhookURL: '   ' }, 'chatbot', undefined],
    [undefined, 'event', undefined],
  ] as const)('%j %s -> %s', (cfg, type, expected) => {
    expect(webhookUrlFor(cfg, type)).toBe(expected);
  });
});

describe('shouldEmitChatbotEvent (flags table)', () => {
  const URL = 'https://bot';
  it.each([
    { url: undefined, out: false, stop: false, direction: 'INCOMING', assigned: false, emit: false },
    { url: '', out: false, stop: false, direction: 'INCOMING', assigned: false, emit: false },
    { url: URL, out: false, stop: false, direction: 'INCOMING', assigned: false, emit: true },
    { url: URL, out: false, stop: false, direction: 'OUTGOING', assigned: false, emit: false },
    { url: URL, out: true, stop: false, direction: 'OUTGOING', assigned: false, emit: true },
    { url: URL, out: false, stop: false, direction: 'INCOMING', assigned: true, emit: true },
    { url: URL, out: false, stop: true, direction: 'INCOMING', assigned: true, emit: false },
    { url: URL, out: true, stop: true, direction: 'OUTGOING', assigned: true, emit: false },
    { url: URL, out: false, stop: true, direction: 'INCOMING', assigned: false, emit: true },
  ] as const)(
    'url $url, includeOutgoing $out, stopOnAgentAssignment $stop, $direction, assigned $assigned: $emit',
    ({ url, out, stop, direction, assigned, emit }) => {
      const cfg = config({
        ...(url === undefined ? {} : { chatbotWebhookURL: url }),
        chatbotIncludeOutgoing: out,
        chatbotStopOnAgentAssignment: stop,
      });
      expect(shouldEmitChatbotEvent(cfg, { direction, agentAssigned: assigned })).toBe(emit);
    },
  );
});

describe('the rest', () => {
  it('chatbotPayloadVersionOf: v1 when null or no configuration', () => {
    expect(
      [null, 'v1', 'v2'].map((v) =>
        chatbotPayloadVersionOf(config({ chatbotPayloadVersion: v as 'v1' | null })),
      ),
    ).toEqual(['v1', 'v1', 'v2']);
    expect(chatbotPayloadVersionOf(undefined)).toBe('v1');
  });

  it('findScopeConflict (rule 5): one default, one override per number', () => {
    expect(findScopeConflict([DEFAULT, OVERRIDE], null)?.id).toBe('default');
    expect(findScopeConflict([DEFAULT, OVERRIDE], 'n1')?.id).toBe('override');
    expect(findScopeConflict([DEFAULT, OVERRIDE], 'n2')).toBeUndefined();
  });

  it('compareWebhookConfigsForList: default first, then by phone number', () => {
    const rows = [
      config({ id: 'z', messagingNumberId: 'z', messagingNumberMsisdn: '+3' }),
      config({ id: 'd' }),
      config({ id: 'a', messagingNumberId: 'a', messagingNumberMsisdn: '+1' }),
    ];
    expect(rows.sort(compareWebhookConfigsForList).map((r) => r.id)).toEqual(['d', 'a', 'z']);
  });

  it('applyWebhookConfigSettings: given fields replace, omitted ones stay, null version resets to v1', () => {
    const created = applyWebhookConfigSettings(undefined, {
      incomingMessageURL: 'https://a',
      chatbotPayloadVersion: 'v2',
    });
    expect(created).toEqual({
      incomingMessageURL: 'https://a',
      chatbotIncludeOutgoing: false,
      chatbotStopOnAgentAssignment: false,
      chatbotPayloadVersion: 'v2',
    });
    expect(applyWebhookConfigSettings(created, { statusUpdateURL: '', chatbotPayloadVersion: null })).toEqual(
      {
        incomingMessageURL: 'https://a',
        statusUpdateURL: '',
        chatbotIncludeOutgoing: false,
        chatbotStopOnAgentAssignment: false,
        chatbotPayloadVersion: null,
      },
    );
  });

  it.each([
    ['', true],
    ['http://127.0.0.1:8080/x', true],
    ['https://hooks.example.com', true],
    ['ftp://x.y', false],
    ['//x.y', false],
    ['x', false],
  ])('webhookUrlSchema %j: %s', (value, ok) => {
    expect(webhookUrlSchema.safeParse(value).success).toBe(ok);
  });
});
