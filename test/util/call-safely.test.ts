// callSafely is the one way the package calls a hook or a report that must not hurt its caller
// (it replaced the dispatcher's own `contain`): throws and rejections are logged, a logger that
// throws is swallowed, and without a logger nothing is told.
import type { Logger } from 'pino';
import { callSafely } from '../../src/util/call-safely.js';

const recording = (): { logger: Logger; lines: string[] } => {
  const lines: string[] = [];
  const logger = {
    error: (_fields: unknown, message: string) => void lines.push(message),
  } as unknown as Logger;
  return { logger, lines };
};

it('logs a throw and a rejection under the hook name, and returns at once', async () => {
  const { logger, lines } = recording();
  callSafely(logger, 'onError', () => {
    throw new Error('boom');
  });
  callSafely(logger, 'onDeadLetter', () => Promise.reject(new Error('later')));
  expect(lines).toEqual(['onError threw']);
  await Promise.resolve();
  await Promise.resolve();
  expect(lines).toEqual(['onError threw', 'onDeadLetter rejected']);
});

it('swallows a logger that throws, and tells nobody without a logger', () => {
  const throwing = {
    error: () => {
      throw new Error('logger down');
    },
  } as unknown as Logger;
  expect(() =>
    callSafely(throwing, 'report', () => {
      throw new Error('boom');
    }),
  ).not.toThrow();
  expect(() =>
    callSafely(undefined, 'runner.failed', () => {
      throw new Error('boom');
    }),
  ).not.toThrow();
});
