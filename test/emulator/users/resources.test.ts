/*
 * The shared resource schemas and renderers (src/schemas/resources.ts): each documented field
 * table (ChatParticipant, SystemUser, Client) is the field list, the schema shape and the
 * rendered keys at once; credential-free renderers drop credentials whatever the record holds.
 */
import {
  CHAT_PARTICIPANT_FIELDS,
  CLIENT_FIELDS,
  CREDENTIAL_FIELDS,
  chatParticipantSchema,
  clientSchema,
  MASKED_PASSWORD,
  SYSTEM_USER_FIELDS,
  systemUserSchema,
  userResponseSchema,
  userSummarySchema,
} from '../../../src/schemas/index.js';
import {
  renderChatParticipant,
  renderClient,
  renderSystemUser,
  renderUserResponse,
  renderUserSummary,
} from '../../../src/schemas/resources.js';
import { findKeys } from './fixtures.js';

const everyCredential = Object.fromEntries(CREDENTIAL_FIELDS.map((field) => [field, `${field}-secret`]));
const record = {
  id: 'u1',
  email: 'a@x.test',
  firstName: 'Ann',
  lastName: 'Lee',
  liveChatRole: 'AGENT',
  ...everyCredential,
};

describe.each([
  [
    'ChatParticipant',
    CHAT_PARTICIPANT_FIELDS,
    chatParticipantSchema,
    () => renderChatParticipant({ id: 'c1' }, () => null),
  ],
  ['SystemUser', SYSTEM_USER_FIELDS, systemUserSchema, () => renderSystemUser(record, { id: 'cl1' })],
  ['Client', CLIENT_FIELDS, clientSchema, () => renderClient({ id: 'cl1' })],
] as const)('%s field table', (_, fields, schema, render) => {
  it('the field list, the schema shape and the rendered keys are the same set', () => {
    expect(Object.keys(schema.shape).sort()).toEqual([...fields].sort());
    expect(Object.keys(render()).sort()).toEqual([...fields].sort());
  });

  it('the rendering validates against the schema', () => {
    expect(schema.safeParse(render()).success).toBe(true);
  });
});

describe('renderers', () => {
  it('SystemUser masks the password and keeps the other credentials (deprecated shape)', () => {
    const user = renderSystemUser(record, { id: 'cl1', smsPassword: 's', headerKeyPairsJson: '[]' });
    expect(user).toMatchObject({
      password: MASKED_PASSWORD,
      apiKey: 'apiKey-secret',
      loginToken: 'loginToken-secret',
    });
    expect(user.client).toMatchObject({ smsPassword: 's' });
  });

  it('a disabled SystemUser has no valid token (loginToken is a plain string: empty, not null)', () => {
    expect(renderSystemUser({ ...record, disabled: true }, null)).toMatchObject({
      validToken: false,
      loginToken: '',
    });
  });

  it.each([
    ['UserResponse', () => renderUserResponse(record, 'demo'), userResponseSchema],
    ['UserSummary', () => renderUserSummary(record), userSummarySchema],
  ] as const)('%s carries no credential even when the record holds all nine', (_, render, schema) => {
    expect(findKeys(render(), CREDENTIAL_FIELDS)).toEqual([]);
    expect(schema.strict().safeParse(render()).success).toBe(true);
  });

  it('UserSummary.name falls back to the e-mail', () => {
    expect(renderUserSummary({ id: 'u2', email: 'x@y.test' }).name).toBe('x@y.test');
    expect(renderUserSummary(record).name).toBe('Ann Lee');
  });

  it('ChatParticipant renders stored agent ids through resolveUser and documented booleans as false by default', () => {
    const seen: string[] = [];
    const chat = renderChatParticipant({ id: 'c1', assignedTo: 'u1', lastAssignedAgent: 'u9' }, (id) => {
      seen.push(id);
      return id === 'u1' ? renderSystemUser(record, null) : null;
    });
    expect(seen).toEqual(['u1', 'u9']);
    expect(chat).toMatchObject({
      assignedTo: { id: 'u1' },
      lastAssignedAgent: null,
      conversationClosed: false,
      expectingRating: false,
    });
  });

  it('schemas keep unknown fields on credential-bearing shapes and strip them on credential-free ones', () => {
    expect(systemUserSchema.parse({ id: 'u', extra: 1 })).toHaveProperty('extra', 1);
    expect(userResponseSchema.parse({ id: 'u', apiKey: 'k' })).toEqual({ id: 'u' });
  });
});
