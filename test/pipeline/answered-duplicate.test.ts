// How a receiver's answer is read as "a duplicate": one function for the emulator's delivery log,
// the CLI's `trigger` and the relay's listener (the relay had a regular expression of its own,
// which also took a `"duplicate": true` nested in the body).
import { answeredDuplicate } from '../../src/pipeline/answered-duplicate.js';
import { DUPLICATE_ANSWER, ACK_ANSWER } from '../../src/pipeline/answers.js';

describe('answeredDuplicate', () => {
  it("reads the receiver's own answers", () => {
    expect(answeredDuplicate(DUPLICATE_ANSWER.status, DUPLICATE_ANSWER.body)).toBe(true);
    expect(answeredDuplicate(ACK_ANSWER.status, ACK_ANSWER.body)).toBe(false);
  });

  it.each([
    ['a nested duplicate', 200, '{"received":true,"meta":{"duplicate":true}}'],
    ['the words inside a string', 200, '{"note":"\\"duplicate\\": true"}'],
    ['a duplicate that is not true', 200, '{"duplicate":"true"}'],
    ['an error answer', 409, '{"duplicate":true}'],
    ['a redirect', 302, '{"duplicate":true}'],
    ['a body that is not JSON', 200, '"duplicate": true'],
    ['an array', 200, '[{"duplicate":true}]'],
    ['no answer', null, null],
  ])('says no for %s', (_name, status, body) => {
    expect(answeredDuplicate(status, body)).toBe(false);
  });
});
