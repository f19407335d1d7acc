import { readFile } from 'node:fs/promises';
import semver from 'semver';

const root = new URL('../../', import.meta.url);
const json = async (path: string): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(new URL(path, root), 'utf8')) as Record<string, unknown>;
const peers = (manifest: Record<string, unknown>): Record<string, string> =>
  (manifest.peerDependencies ?? {}) as Record<string, string>;

describe('@opentelemetry/api: the stated peer range', () => {
  it('overlaps the API range of every SDK line docs/otel.md lists, and the install pins fit both', async () => {
    const range = peers(await json('package.json'))['@opentelemetry/api']!;
    const doc = await readFile(new URL('docs/otel.md', root), 'utf8');
    expect(doc).toContain(`"@opentelemetry/api": "${range}"`);
    // Rows of the version table: | Node | SDK | `sdk range` | `@opentelemetry/api@pin` |
    const rows = [...doc.matchAll(/^\|[^|\n]+\|[^|\n]+\| `([^`]+)` \| `@opentelemetry\/api@([^`]+)` \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const [, sdkRange, pin] of rows) {
      expect([sdkRange, semver.intersects(range, sdkRange!)]).toEqual([sdkRange, true]);
      expect([pin, semver.subset(pin!, sdkRange!), semver.subset(pin!, range)]).toEqual([pin, true, true]);
    }
    // The five-line setup's install line uses a pin from the table.
    const install = /npm install (@opentelemetry\/api@\S+)/.exec(doc)?.[1];
    expect(rows.map(([, , pin]) => `@opentelemetry/api@${pin}`)).toContain(install);
  });

  it("is met by the repository's devDependency, which also meets its SDK's own peer range", async () => {
    const range = peers(await json('package.json'))['@opentelemetry/api']!;
    const api = (await json('node_modules/@opentelemetry/api/package.json')).version as string;
    expect(semver.satisfies(api, range)).toBe(true);
    for (const sdk of ['sdk-trace-base', 'context-async-hooks', 'core']) {
      const sdkRange = peers(await json(`node_modules/@opentelemetry/${sdk}/package.json`))[
        '@opentelemetry/api'
      ];
      expect([sdk, api, sdkRange !== undefined && semver.satisfies(api, sdkRange)]).toEqual([sdk, api, true]);
    }
  });
});
