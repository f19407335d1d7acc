import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CALLBACKS, runDemo } from '../../src/cli/demo.js';
import { readCapture } from '../../src/testing/index.js';
import { validateRecord } from '../../src/cli/validate.js';

describe('runDemo (in-process)', () => {
  it('passes every check and calls every callback', async () => {
    const lines: string[] = [];
    const result = await runDemo({ write: (line) => lines.push(line) });
    expect(result.checks.filter((check) => !check.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    for (const callback of DEMO_CALLBACKS) expect(result.callbacks[callback]).toBeGreaterThan(0);
    expect(lines.at(-1)).toBe('Shut down cleanly.');
  });

  it('shows the late DELIVERED receipt after READ, ignored', async () => {
    const lines: string[] = [];
    await runDemo({ write: (line) => lines.push(line) });
    const statuses = lines.filter((line) => line.includes('◀ onStatus')).map((line) => line.split(/\s+/)[4]);
    expect(statuses).toEqual(['ACCEPTED', 'SENT', 'READ', 'DELIVERED']);
    expect(lines.find((line) => line.includes('◀ onStatus') && line.includes('DELIVERED'))).toContain(
      'IGNORED (regression: already READ)',
    );
  });

  it('emits no chatbot event between the assignment and the end', async () => {
    const lines: string[] = [];
    await runDemo({ write: (line) => lines.push(line) });
    const assigned = lines.findIndex((line) => line.startsWith('▶ Agent Ada takes the chat'));
    expect(assigned).toBeGreaterThan(0);
    expect(lines.slice(0, assigned).some((line) => line.includes('◀ onChatbot'))).toBe(true);
    expect(lines.slice(assigned).some((line) => line.includes('◀ onChatbot'))).toBe(false);
  });

  it('captures every request it received, each of which validates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-demo-'));
    try {
      const file = join(dir, 'demo.jsonl');
      const result = await runDemo({ capture: file });
      let count = 0;
      for await (const line of readCapture(file)) {
        expect(line.error).toBeUndefined();
        expect(validateRecord(line.record!).ok).toBe(true);
        count += 1;
      }
      expect(count).toBe(result.captured);
      expect(count).toBeGreaterThan(15);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
