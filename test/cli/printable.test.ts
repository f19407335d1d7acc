import fc from 'fast-check';
import { printable, printableIo, type CliIo } from '../../src/cli/output.js';

// eslint-disable-next-line no-control-regex -- what a terminal acts on
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('printable: text a sender or receiver wrote, made safe for a terminal', () => {
  it.each([
    ['an OSC title change', '\u001b]0;owned\u0007', '\\u001b]0;owned\\u0007'],
    ['a CSI screen clear', '\u001b[2J\u001b[H', '\\u001b[2J\\u001b[H'],
    ['an 8-bit CSI (C1)', '\u009b31mred', '\\u009b31mred'],
    ['a carriage return', 'ok\rFAIL', 'ok\\u000dFAIL'],
    ['DEL and NUL', 'a\u007fb\u0000', 'a\\u007fb\\u0000'],
    ['a bidi override', 'abc\u202edcba', 'abc\\u202edcba'],
    ['plain text, accents and emoji', 'héllo 👋', 'héllo 👋'],
  ])('escapes %s', (_name, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('keeps tab and line feed unless oneLine', () => {
    expect(printable('a\tb\nc')).toBe('a\tb\nc');
    expect(printable('a\tb\nc', { oneLine: true })).toBe('a\\u0009b\\u000ac');
  });

  it('leaves no control character in any string, and changes nothing printable', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const shown = printable(text);
        expect(shown.replace(/[\t\n]/g, '')).not.toMatch(CONTROL);
        if (!CONTROL.test(text)) expect(shown).toBe(text);
      }),
      { seed: 25, numRuns: 2000 },
    );
  });

  it('keeps JSON valid and equal to the original when applied to JSON text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(JSON.parse(printable(JSON.stringify({ text })))).toEqual({ text });
      }),
      { seed: 26, numRuns: 1000 },
    );
  });

  it('printableIo passes every line and status line through it', () => {
    const lines: string[] = [];
    const io: CliIo = {
      out: (l) => lines.push(`out ${l}`),
      err: (l) => lines.push(`err ${l}`),
      isTty: true,
      status: (t) => lines.push(`status ${t}`),
    };
    const safe = printableIo(io);
    safe.out('\u001b[2J');
    safe.err('\u009b');
    safe.status('\r[##]');
    expect(lines).toEqual(['out \\u001b[2J', 'err \\u009b', 'status \\u000d[##]']);
  });
});
