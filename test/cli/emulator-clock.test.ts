import { jest } from '@jest/globals';
import { fakeDateOnly } from '../helpers/clock.js';
import { startEmulatorCommand, stopEmulatorCommand } from '../../src/cli/emulator.js';
import type { CliIo } from '../../src/cli/output.js';

// The CLI emulator's clock runs with real time by default: two identical triggers seconds apart
// are two events with different timestamps. `--clock manual` keeps the library's manual clock.
// Only Date is faked (the server's timers stay real): the "seconds apart" are set, not waited.

const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const io: CliIo = { out: () => undefined, err: () => undefined, isTty: false, status: () => undefined };

beforeEach(() => {
  fakeDateOnly(T);
});
afterEach(() => jest.useRealTimers());

async function twoTriggers(clock: 'real-time' | 'manual' | undefined): Promise<[unknown, unknown]> {
  const emulator = await startEmulatorCommand({ port: '0', ...(clock === undefined ? {} : { clock }) }, io);
  const post = async (): Promise<unknown> => {
    const response = await fetch(`${emulator.url ?? ''}/_emulator/partner-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        eventType: 'PHONE_QUALITY_CHANGED',
        messagingNumber: '+27820000001',
        qualityRating: 'RED',
      }),
    });
    return ((await response.json()) as { payload: { timestamp: unknown } }).payload.timestamp;
  };
  try {
    const first = await post();
    jest.setSystemTime(T + 4_000);
    return [first, await post()];
  } finally {
    await stopEmulatorCommand(emulator, {}, io);
  }
}

describe('messaging-webhooks emulator --clock', () => {
  it('runs with real time by default', async () => {
    expect(await twoTriggers(undefined)).toEqual([T, T + 4_000]);
  });

  it('keeps a manual clock with --clock manual', async () => {
    expect(await twoTriggers('manual')).toEqual([T, T]);
  });
});
