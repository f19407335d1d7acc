import { readFile } from 'node:fs/promises';

const root = new URL('../../', import.meta.url);

/** The first ```ts block after a README heading. */
function firstTsBlockAfter(markdown: string, heading: string): string {
  const section = markdown.slice(markdown.indexOf(`\n${heading}\n`));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error(`no ts block after ${heading}`);
  return match[1];
}

describe('README Quick start type fixture', () => {
  it('is the README block verbatim, but for the package imports pointing at src', async () => {
    const readme = await readFile(new URL('README.md', root), 'utf8');
    const fixture = await readFile(new URL('test/types/readme-quick-start.ts', root), 'utf8');
    const begin = '// README Quick start: begin\n';
    const between = fixture.slice(
      fixture.indexOf(begin) + begin.length,
      fixture.indexOf('// README Quick start: end'),
    );
    const expected = firstTsBlockAfter(readme, '## Quick start').replaceAll(
      /from 'messaging-webhooks(\/[\w-]+)?';/g,
      (_, subpath: string | undefined) => `from '../../src${subpath ?? ''}/index.js';`,
    );
    expect(between).toBe(expected);
  });
});
