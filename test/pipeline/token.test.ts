import request from 'supertest';
import { createWebhookPipeline, type WebhookPipelineOptions } from '../../src/pipeline/index.js';
import { createNodeHandler } from '../../src/receiver/index.js';
import { buildIncoming } from '../../src/testing/index.js';
import { captureLogger } from '../helpers/receiver.js';
import { errorOf, js } from './helpers.js';

const OPEN_WARNING = /no webhook token/;

const warnings = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.level === 40).map((line) => String(line.msg));

describe('the token option', () => {
  it('warns at construction when token is undefined (an unset environment variable)', () => {
    const { logger, lines } = captureLogger('info');
    const env: Record<string, string | undefined> = {};
    createWebhookPipeline({ logger, token: env.WEBHOOK_TOKEN });
    expect(warnings(lines)).toEqual([expect.stringMatching(OPEN_WARNING)]);
  });

  it('warns when token is left out', () => {
    const { logger, lines } = captureLogger('info');
    createNodeHandler({ logger });
    expect(warnings(lines).filter((msg) => OPEN_WARNING.test(msg))).toHaveLength(1);
  });

  it('does not warn for token: false, which accepts requests without a token on purpose', async () => {
    const { logger, lines } = captureLogger('debug');
    const handler = createNodeHandler({ logger, token: false, onIncoming: () => undefined });
    await request(handler).post('/incoming').send(buildIncoming()).expect(200);
    expect(warnings(lines)).toEqual([]);
  });

  it('does not warn when a token is set, and then requires it', async () => {
    const { logger, lines } = captureLogger('debug');
    const handler = createNodeHandler({ logger, token: 's3cret', onIncoming: () => undefined });
    await request(handler).post('/incoming').send(buildIncoming()).expect(401);
    expect(warnings(lines)).toEqual([]);
  });

  it('types false as a value and still refuses true and empty strings', async () => {
    const open: WebhookPipelineOptions = { token: false };
    expect(open.token).toBe(false);
    // @ts-expect-error -- true is not a token
    const wrong: WebhookPipelineOptions = { token: true };
    for (const token of [wrong.token, '', [''], js<string>(0)]) {
      const error = await errorOf(() => createWebhookPipeline(js({ token })));
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toMatch(/token: expected .* or false/);
    }
  });
});
