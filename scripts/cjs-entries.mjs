// After `tsc`: gives every subpath export a CommonJS entry in dist/.
//
// - `index.cjs` beside each subpath's ESM `index.js`: Node >= 20.19 loads the ESM build itself
//   through require() (one module instance for import and require, no dual-package hazard); on an
//   older Node the require fails with ERR_REQUIRE_ESM and this entry rethrows an error that says the
//   package is ESM and how to load it.
// - A `.d.cts` copy of every `.d.ts`, relative specifiers rewritten to `.cjs`, so TypeScript in a
//   CommonJS file (module node16/nodenext) sees CommonJS declarations: a `.d.cts` that re-exported the
//   ESM `.d.ts` would need TypeScript >= 5.8 (TS1479 before it).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The subpath exports of package.json, as folders of dist/ ('.' is the root). */
const ENTRIES = ['.', 'schemas', 'emulator', 'testing', 'client', 'redis', 'fastify', 'metrics', 'otel'];
const dist = join(import.meta.dirname, '..', 'dist');

const RELATIVE_JS = /((?:from|import\()\s*['"]\.{1,2}\/[^'"]*?)\.js(['"])/g;

function* declarationFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* declarationFiles(path);
    else if (entry.name.endsWith('.d.ts')) yield path;
  }
}

let declarations = 0;
for (const file of declarationFiles(dist)) {
  const text = readFileSync(file, 'utf8').replace(RELATIVE_JS, '$1.cjs$2');
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), text);
  declarations += 1;
}

for (const entry of ENTRIES) {
  const specifier = entry === '.' ? 'messaging-webhooks' : `messaging-webhooks/${entry}`;
  const js = `'use strict';
// CommonJS entry of ${specifier}. The package is ESM; Node >= 20.19 require()s ESM.
try {
  module.exports = require('./index.js');
} catch (error) {
  if (error !== null && typeof error === 'object' && error.code === 'ERR_REQUIRE_ESM') {
    throw new Error(
      '${specifier} is an ES module: require() of it needs Node >= 20.19 (this is ' +
        process.version +
        "). Upgrade Node, or load it with import { ... } from '${specifier}' in an ES module, " +
        "or with await import('${specifier}') in CommonJS.",
      { cause: error },
    );
  }
  throw error;
}
`;
  writeFileSync(join(dist, entry, 'index.cjs'), js);
}
console.log(
  `cjs-entries: ${ENTRIES.length} .cjs entries, ${declarations} .d.cts declarations in ${relative(process.cwd(), dist) || '.'}`,
);
