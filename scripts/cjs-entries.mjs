// After `tsc`: gives every subpath export a CommonJS entry in dist/.
//
// - `index.cjs` beside each subpath's ESM `index.js`: Node 20.19+ and 22.12+ load the ESM build itself
//   through require() (one module instance for import and require, no dual-package hazard). When
//   that require() fails because the file is ESM, this entry rethrows an error that says why and
//   what to do: on an older Node, that the package is ESM and how to load it; when the running Node
//   can require() ESM (process.features.require_module), that the require() was not Node's but a
//   test runner's or bundler's, and for jest (whose module system gives every module a `jest`
//   binding) how to run it in ESM mode (docs/testing-your-app.md, shipped in the package).
// - A `.d.cts` copy of every `.d.ts`, relative specifiers rewritten to `.cjs`, so TypeScript in a
//   CommonJS file (module node16/nodenext) sees CommonJS declarations: a `.d.cts` that re-exported the
//   ESM `.d.ts` would need TypeScript >= 5.8 (TS1479 before it).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The subpath exports of package.json, as folders of dist/ ('.' is the root). */
const ENTRIES = [
  '.',
  'schemas',
  'emulator',
  'testing',
  'client',
  'redis',
  'fastify',
  'hono',
  'lambda',
  'metrics',
  'otel',
  'cloudflare',
  'relay',
  'adapter',
];
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
  const docs = entry === '.' ? '../docs/testing-your-app.md' : '../../docs/testing-your-app.md';
  const js = `'use strict';
// CommonJS entry of ${specifier}. The package is ESM; Node 20.19+ and 22.12+ require() ESM.
try {
  module.exports = require('./index.js');
} catch (error) {
  // The ESM build could not be required: Node's ERR_REQUIRE_ESM (jest 30 throws it too), or a
  // loader that parsed the ESM file as a script (jest 29: "Unexpected token 'export'").
  const esm =
    error !== null &&
    typeof error === 'object' &&
    (error.code === 'ERR_REQUIRE_ESM' ||
      (error.name === 'SyntaxError' &&
        /Unexpected token 'export'|Cannot use import statement outside a module/.test(error.message)));
  if (!esm) throw error;
  const doc = require('node:path').join(__dirname, '${docs}');
  const [major, minor] = process.versions.node.split('.').map(Number);
  const versionCan = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
  if (typeof jest !== 'undefined') {
    // jest's module system gives every module a \`jest\` binding; its CommonJS mode loads files
    // itself (jest 30 says so with process.features.require_module false), whatever Node can do.
    throw new Error(
      "${specifier} is an ES module, and jest's CommonJS module system cannot require() it" +
        (versionCan ? ' (Node ' + process.version + ' can, but jest loads modules itself)' : '') +
        '. Run jest in ESM mode: NODE_OPTIONS=--experimental-vm-modules jest, with the test files as ' +
        'ES modules ("type": "module"; TypeScript: the preset ts-jest/presets/default-esm). ' +
        'The exact config: ' +
        doc,
      { cause: error },
    );
  }
  // Node's own require() can load ESM unless process.features.require_module says otherwise
  // (20.19+, 22.10+; false under --no-experimental-require-module); older Node has no such flag.
  const flag = process.features === undefined ? undefined : process.features.require_module;
  if (typeof flag === 'boolean' ? flag : versionCan) {
    throw new Error(
      '${specifier} is an ES module. Node ' +
        process.version +
        ' can require() it, but this require() was run by another module loader (a test runner or ' +
        "bundler) that cannot load ES modules: load it with import { ... } from '${specifier}', " +
        'or configure that tool for ES modules (see ' +
        doc +
        ').',
      { cause: error },
    );
  }
  throw new Error(
    '${specifier} is an ES module: require() of it needs Node 20.19+ or 22.12+' +
      (versionCan ? ' without --no-experimental-require-module' : '') +
      ' (this is ' +
      process.version +
      "). Upgrade Node, or load it with import { ... } from '${specifier}' in an ES module, " +
      "or with await import('${specifier}') in CommonJS.",
    { cause: error },
  );
}
`;
  writeFileSync(join(dist, entry, 'index.cjs'), js);
}
console.log(
  `cjs-entries: ${ENTRIES.length} .cjs entries, ${declarations} .d.cts declarations in ${relative(process.cwd(), dist) || '.'}`,
);
