import request from 'supertest';
import { createNodeHandler } from '../../src/receiver/index.js';
import { buildIncoming } from '../../src/testing/index.js';
import { captureLogger } from '../helpers/receiver.js';
import { onIncoming, onIncomingDuplicatingType } from './readme-snippets.js';

/** The keys of each JSON log line whose message is `msg`, as written (duplicates kept). */
async function keysOfLine(callback: typeof onIncoming, msg: string): Promise<string[]> {
  const { logger, text } = captureLogger('info');
  const handler = createNodeHandler({ logger, token: false, onIncoming: callback });
  await request(handler).post('/incoming').send(buildIncoming()).expect(200);
  await handler.idle();
  const line = text()
    .split('\n')
    .find((one) => one.includes(`"msg":"${msg}"`));
  return [...(line ?? '').matchAll(/"([^"]+)":/g)].map(([, key]) => key!);
}

const duplicates = (keys: readonly string[]): string[] =>
  keys.filter((key, index) => keys.indexOf(key) !== index);

describe("the README's ctx.logger line", () => {
  it('writes each key once: ctx.logger already binds type and requestId', async () => {
    const keys = await keysOfLine(onIncoming, 'customer message');
    expect(keys).toEqual(expect.arrayContaining(['type', 'requestId', 'contentType']));
    expect(duplicates(keys)).toEqual([]);
  });

  it('the line it replaces wrote `type` twice', async () => {
    expect(duplicates(await keysOfLine(onIncomingDuplicatingType, 'customer message'))).toEqual(['type']);
  });
});
