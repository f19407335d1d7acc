import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createOpenApiDocument } from '../../src/openapi/index.js';

/**
 * The document as openapi-typescript reads it: the types it generates for every payload and
 * resource agree with the package's own exported types, both ways. The test writes the document,
 * runs the openapi-typescript CLI on it, and compiles a fixed program with tsc that assigns each
 * library type to its generated type and back (against the built declarations, as a user imports
 * them: CI builds before testing; locally run `npm run build` first). tsc names each pair that
 * does not agree.
 *
 * One difference is by design and mapped away before comparing: the discriminator of an
 * unlisted branch (a messageContentType, status, eventType or direction the documentation does
 * not list) is a branded `String` in the package, so a `switch` on a documented value narrows
 * past it, and a string `not` in the documented values in the document.
 */
const run = promisify(execFile);
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const OPENAPI_TYPESCRIPT = repo('node_modules/openapi-typescript/bin/cli.js');
const TSC = repo('node_modules/typescript/bin/tsc');

/** Library type (as imported from messaging-webhooks/schemas) → component of the document. */
const PAIRS: readonly (readonly [string, string])[] = [
  // payloads (section Events) and their branches
  ...[
    'IncomingMessage',
    'IncomingTextMessage',
    'IncomingMediaMessage',
    'IncomingLocationMessage',
    'IncomingButtonMessage',
    'IncomingInteractiveMessage',
    'IncomingContactMessage',
    'IncomingReactionMessage',
    'IncomingCarouselMessage',
    'UnlistedIncomingMessage',
    'StatusUpdate',
    'AcceptedStatusUpdate',
    'SentStatusUpdate',
    'DeliveredStatusUpdate',
    'ReadStatusUpdate',
    'PlayedStatusUpdate',
    'FailedStatusUpdate',
    'UnlistedStatusUpdate',
    'SessionStatus',
    'PartnerEvent',
    'PhoneQualityChangedEvent',
    'TemplateStatusChangedEvent',
    'TemplateQualityChangedEvent',
    'TemplateComponentsChangedEvent',
    'UserPreferenceEvent',
    'UserChangedNumberEvent',
    'UnlistedPartnerEvent',
    'ChatbotEventV1',
    'UnlistedChatbotEventV1',
    'ChatbotEventV2',
    'UnlistedChatbotEventV2',
  ].map((name) => [name, name] as const),
  ['ChatbotIncomingEventV1', 'ChatbotEventV1Incoming'],
  ['ChatbotOutgoingEventV1', 'ChatbotEventV1Outgoing'],
  ['ChatbotIncomingEventV2', 'ChatbotEventV2Incoming'],
  ['ChatbotOutgoingEventV2', 'ChatbotEventV2Outgoing'],
  // resources and answers
  ...[
    'ChatParticipant',
    'ChatParticipantView',
    'SystemUser',
    'Client',
    'UserResponse',
    'UserCreatedResponse',
    'UserSummary',
    'UserCredits',
    'MessageResponse',
    'UsersForClientPage',
  ].map((name) => [name, name] as const),
  ['WebhookConfig', 'MessagingClientWebHook'],
  ['MessagingClientNumber', 'MessagingClientNumberResponse'],
  ['lib.Page<lib.WebhookConfig>', 'MessagingClientWebHookPage'],
  ['lib.Page<lib.MessagingClientNumber>', 'MessagingClientNumberPage'],
  ['lib.Page<lib.UserResponse>', 'UserResponsePage'],
  // request bodies
  ...[
    'WebhookConfigCreate',
    'WebhookConfigUpdate',
    'UserCreate',
    'UserUpdate',
    'PasswordChange',
    'AvailabilityChange',
    'AgentChatLimitChange',
    'SystemUserCreate',
    'SystemUserUpdate',
    'ChatParticipantTerminate',
  ].map((name) => [name, name] as const),
];
/** Components with no type of their own in the package (the error bodies). */
const WITHOUT_LIBRARY_TYPE = ['ErrorResponse', 'EmulatorErrorResponse'];

/** Two lines per pair: library → generated, generated → library. Line numbers start at 1. */
function program(): { text: string; lineOf: Map<number, string> } {
  const lines = [
    "import type { components } from './platform.js';",
    "import type * as lib from 'messaging-webhooks/schemas';",
    "type C = components['schemas'];",
    // the unlisted discriminator as the document writes it: a string
    'type Plain<T> = T extends unknown ? { [K in keyof T]: [T[K]] extends [lib.UnlistedValue] ? string : T[K] } : never;',
  ];
  const lineOf = new Map<number, string>();
  PAIRS.forEach(([library, component], index) => {
    const type = `Plain<${library.includes('<') ? library : `lib.${library}`}>`;
    lineOf.set(lines.length + 1, `${library} → ${component}`);
    lines.push(`export const a${index} = (x: ${type}): C['${component}'] => x;`);
    lineOf.set(lines.length + 1, `${component} → ${library}`);
    lines.push(`export const b${index} = (x: C['${component}']): ${type} => x;`);
  });
  return { text: `${lines.join('\n')}\n`, lineOf };
}

let dir: string;
beforeAll(() => {
  if (!existsSync(repo('dist/schemas/index.d.ts'))) {
    throw new Error('dist/schemas/index.d.ts is missing: run `npm run build` before this test');
  }
  dir = mkdtempSync(join(tmpdir(), 'mw-openapi-types-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('every component of the document with a library type is checked', () => {
  const components = Object.keys(createOpenApiDocument().components.schemas).sort();
  expect(components).toEqual([...PAIRS.map(([, component]) => component), ...WITHOUT_LIBRARY_TYPE].sort());
});

it('openapi-typescript types every payload and resource as the package does, both ways', async () => {
  const env = { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0' };
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(createOpenApiDocument()));
  await run(
    process.execPath,
    [OPENAPI_TYPESCRIPT, join(dir, 'openapi.json'), '-o', join(dir, 'platform.ts')],
    {
      env,
    },
  );
  const { text, lineOf } = program();
  writeFileSync(join(dir, 'check.ts'), text);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        paths: { 'messaging-webhooks/schemas': [repo('dist/schemas/index.d.ts')] },
      },
      files: ['check.ts'],
    }),
  );
  const { stdout } = await run(
    process.execPath,
    [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
    {
      env,
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  // check.ts(<line>,<col>): error TS...: the pair on that line does not agree
  const disagreeing = [...stdout.matchAll(/^\S*check\.ts\((\d+),\d+\): error (TS\d+: .*)$/gm)].map(
    ([, line, message]) => `${lineOf.get(Number(line)) ?? `line ${line}`}: ${message?.slice(0, 300) ?? ''}`,
  );
  expect(disagreeing).toEqual([]);
  // anything else tsc reported (a missing module, a bad option) fails the test too
  expect(
    stdout
      .replace(/^\S*check\.ts\(.*$/gm, '')
      .replace(/^\s+.*$/gm, '')
      .trim(),
  ).toBe('');
}, 120_000);
