// The contract artifacts as a user of another stack gets them: messaging-webhooks/openapi.json and
// messaging-webhooks/schemas/json/<name>.json imported from the packed tarball by ESM (import
// attributes) and, in ./require.cjs, by CommonJS require(); the payload schemas checked with ajv
// against the fixture corpus. The block below is docs/openapi.md's example, verbatim
// (test/openapi/docs.test.ts keeps the two identical).
import { Ajv2020 } from 'ajv/dist/2020.js';
import incomingMessage from 'messaging-webhooks/schemas/json/incoming-message.json' with { type: 'json' };

const validate = new Ajv2020().compile(incomingMessage);
const payload = { sender: '+27825550143', messageContentType: 'TEXT', text: 'Hi' };
if (validate(payload)) console.log('valid incoming message');
else console.log(validate.errors);
// End of the docs/openapi.md example.

import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import openapi from 'messaging-webhooks/openapi.json' with { type: 'json' };
import { detectChatbotPayloadVersion } from 'messaging-webhooks/schemas';
import { allFixtures } from 'messaging-webhooks/testing';

const fromRequire = createRequire(import.meta.url)('./require.cjs');
const problems = [];
if (!validate(payload)) problems.push('the docs example payload is not valid');
if (validate({ sender: '+27825550143', messageContentType: 'TEXT' }))
  problems.push('a TEXT without text passed');
if (openapi.openapi !== '3.1.0') problems.push(`openapi is ${openapi.openapi}`);
if (openapi.components.securitySchemes.apikeyAuth.name !== 'Authorization') problems.push('no apikeyAuth');
if (!isDeepStrictEqual(fromRequire.openapi, openapi))
  problems.push('import and require() gave different documents');

// Every fixture passes the schema of its type (chatbot: the payload version it carries).
const byType = {
  incoming: 'IncomingMessage',
  status: 'StatusUpdate',
  session: 'SessionStatus',
  event: 'PartnerEvent',
};
let checked = 0;
for (const { name, type, payload: fixture } of allFixtures()) {
  const id =
    byType[type] ?? (detectChatbotPayloadVersion(fixture) === 'v2' ? 'ChatbotEventV2' : 'ChatbotEventV1');
  const check = fromRequire.validators[id];
  if (!check(fixture)) problems.push(`${name} failed ${id}: ${JSON.stringify(check.errors)}`);
  checked += 1;
}
const webhooks = Object.keys(openapi.webhooks).length;

if (problems.length > 0 || checked === 0 || webhooks !== 6 || fromRequire.files !== 15) {
  console.error('openapi-json: FAIL', { problems, checked, webhooks, files: fromRequire.files });
  process.exit(1);
}
console.log(
  `openapi-json: ok (openapi.json by import and require, ${fromRequire.files} JSON Schemas compiled, ` +
    `${checked} fixtures valid, ${webhooks} webhooks)`,
);
