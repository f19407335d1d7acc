import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * scripts/check-snippets.mjs compiles the ```ts blocks of docs/*.md; the plain JavaScript example
 * of docs/openapi.md is run instead: it is the head of the openapi-json consumer app, which CI runs
 * against the packed tarball (scripts/consumers.sh). This keeps the two identical.
 */
const read = (path: string): string =>
  readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

it('the JavaScript example of docs/openapi.md is the one the openapi-json consumer app runs', () => {
  const blocks = [...read('docs/openapi.md').matchAll(/^```js\n([\s\S]*?)^```$/gm)].map(
    (m) => m[1] as string,
  );
  expect(blocks).toHaveLength(1);
  const app = read('test/consumers/openapi-json/main.js');
  expect(app).toContain(blocks[0]);
});
