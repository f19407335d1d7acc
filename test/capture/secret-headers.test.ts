// One list of secret headers for capture: the receiver leaves them out of a record, and
// createJsonlCapture removes them from any record handed to it (a relay's, a hand-written sink's).
// Before, createJsonlCapture's list lacked set-cookie, which the receiver's had.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAPTURE_SECRET_HEADERS } from '../../src/capture/types.js';
import { createJsonlCapture, DEFAULT_CAPTURE_SECRET_HEADERS } from '../../src/testing/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'capture-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('the default redaction removes every secret header, set-cookie included, and the token header', async () => {
  expect(CAPTURE_SECRET_HEADERS).toContain('set-cookie');
  expect(DEFAULT_CAPTURE_SECRET_HEADERS).toEqual([...CAPTURE_SECRET_HEADERS, 'x-webhook-token']);
  const file = join(dir, 'capture.jsonl');
  const capture = createJsonlCapture({ file });
  capture({
    receivedAt: '2026-01-01T00:00:00.000Z',
    path: '/incoming',
    type: 'incoming',
    headers: {
      'content-type': 'application/json',
      Authorization: 'Basic x',
      'proxy-authorization': 'Basic y',
      cookie: 'a=1',
      'Set-Cookie': 'b=2',
      'x-webhook-token': 's3cret',
    },
    body: '{}',
  });
  await capture.close();
  const [line] = readFileSync(file, 'utf8').trim().split('\n');
  expect((JSON.parse(line!) as { headers: unknown }).headers).toEqual({ 'content-type': 'application/json' });
});
