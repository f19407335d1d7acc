/**
 * The benchmarks, scripts and JavaScript examples import the build (`dist/`) by path, which no
 * compiler checks: every name they import from it must exist there, or a scenario fails only when
 * someone runs it. Needs `npm run build` first (CI builds before testing).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function scriptsUnder(dir: string): string[] {
  return readdirSync(join(repo, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(repo, path)).isDirectory()) return name === 'results' ? [] : scriptsUnder(path);
    return /\.(m?js)$/.test(name) ? [path] : [];
  });
}

/** `[file, specifier, name]` for each name a script imports from `dist/`, statically or dynamically. */
function distImports(): [string, string, string][] {
  const found: [string, string, string][] = [];
  for (const file of [...scriptsUnder('bench'), ...scriptsUnder('scripts')]) {
    const text = readFileSync(join(repo, file), 'utf8');
    const patterns = [
      /import\s*\{([^}]*)\}\s*from\s*'([^']*dist\/[^']*)'/g,
      /const\s*\{([^}]*)\}\s*=\s*await import\('([^']*dist\/[^']*)'\)/g,
      // Assigned to names declared earlier: `({ a } = await import('../../dist/x.js'));`
      /\(\{([^}]*)\}\s*=\s*await import\('([^']*dist\/[^']*)'\)\)/g,
    ];
    for (const pattern of patterns) {
      for (const [, names, specifier] of text.matchAll(pattern)) {
        for (const name of names!.split(',')) {
          const bare = name
            .trim()
            .split(/\s+as\s+|:/)[0]!
            .trim();
          if (bare !== '') found.push([file, resolve(repo, dirname(file), specifier!), bare]);
        }
      }
    }
  }
  return found;
}

it('every name the benchmarks and scripts import from dist/ is exported there', async () => {
  const imports = distImports();
  expect(imports.length).toBeGreaterThan(20);
  const missing: string[] = [];
  for (const [file, path, name] of imports) {
    const module = (await import(path)) as Record<string, unknown>;
    if (!(name in module)) missing.push(`${file}: ${name} from ${path.slice(repo.length + 1)}`);
  }
  expect(missing).toEqual([]);
});
