// CommonJS: the same artifacts through require(), each JSON Schema compiled standalone with ajv
// (ajv-formats for the formats the resource schemas use: uuid, date-time, uri, email).
const { Ajv2020 } = require('ajv/dist/2020');
const addFormats = require('ajv-formats');

const FILES = {
  'incoming-message': 'IncomingMessage',
  'status-update': 'StatusUpdate',
  'session-status': 'SessionStatus',
  'partner-event': 'PartnerEvent',
  'chatbot-event-v1': 'ChatbotEventV1',
  'chatbot-event-v2': 'ChatbotEventV2',
  'chat-participant': 'ChatParticipant',
  'system-user': 'SystemUser',
  client: 'Client',
  'user-response': 'UserResponse',
  'user-summary': 'UserSummary',
  'messaging-client-webhook': 'MessagingClientWebHook',
  'messaging-client-number': 'MessagingClientNumberResponse',
  page: 'Page',
  'error-response': 'ErrorResponse',
};

const validators = {};
for (const [file, title] of Object.entries(FILES)) {
  const schema = require(`messaging-webhooks/schemas/json/${file}.json`);
  if (schema.title !== title) throw new Error(`${file}.json has title ${schema.title}, expected ${title}`);
  // one Ajv per file: each is a standalone document (its own $defs)
  validators[title] = addFormats(new Ajv2020()).compile(schema);
}

module.exports = {
  openapi: require('messaging-webhooks/openapi.json'),
  validators,
  files: Object.keys(validators).length,
};
