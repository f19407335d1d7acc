// jest's default CommonJS setup: `jest` on app.test.js fails, and the error says what is wrong
// (jest's module system, not Node's version) and how to fix it (ESM mode, the doc shipped in the
// package). Then the same entry under a loader that is neither Node's nor jest's (an old bundler's
// require that runs every file as a CommonJS script): the message names that case.
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const SPECIFIER = 'messaging-webhooks/emulator';
const [major, minor] = process.versions.node.split('.').map(Number);
const nodeCan = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
const wrong = [];

const env = { ...process.env };
delete env.NODE_OPTIONS; // the default setup: no --experimental-vm-modules
const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--ci'], {
  cwd: __dirname,
  env,
  encoding: 'utf8',
});
const output = `${jest.stdout}${jest.stderr}`;
const expected = [
  `${SPECIFIER} is an ES module, and jest's CommonJS module system cannot require() it`,
  nodeCan ? `(Node ${process.version} can, but jest loads modules itself)` : '',
  'Run jest in ESM mode: NODE_OPTIONS=--experimental-vm-modules jest',
  'ts-jest/presets/default-esm',
];
if (jest.status !== 1) wrong.push(`jest exited with ${jest.status}, not 1`);
for (const text of expected) if (!output.includes(text)) wrong.push(`jest's output lacks: ${text}`);
if (output.includes('require() of it needs Node')) wrong.push("jest's output blames the Node version");
const doc = /The exact config: (\S+testing-your-app\.md)/.exec(output)?.[1];
if (doc === undefined || !existsSync(doc)) wrong.push(`the doc it names is not in the package: ${doc}`);

// An old bundler's require(): './index.js' compiled as a CommonJS script (SyntaxError on `export`).
function scriptRequire(file) {
  const module = { exports: {} };
  const source = readFileSync(file, 'utf8');
  const run = vm.runInThisContext(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
  );
  const local = (specifier) =>
    specifier.startsWith('.') ? scriptRequire(join(dirname(file), specifier)) : require(specifier);
  run(module.exports, local, module, file, dirname(file));
  return module.exports;
}
let bundlerMessage = '';
try {
  scriptRequire(require.resolve(SPECIFIER));
} catch (error) {
  bundlerMessage = String(error && error.message);
}
const bundlerExpected = nodeCan
  ? `${SPECIFIER} is an ES module. Node ${process.version} can require() it, but this require() was run by another module loader`
  : `${SPECIFIER} is an ES module: require() of it needs Node 20.19+ or 22.12+`;
if (!bundlerMessage.includes(bundlerExpected)) wrong.push(`under another loader: ${bundlerMessage}`);

if (wrong.length > 0) {
  console.error('jest-cjs: FAIL', wrong, `\n--- jest's output ---\n${output}`);
  process.exit(1);
}
console.log(`jest-cjs: ok (jest's CommonJS require() of ${SPECIFIER}: the error names jest and the ESM fix)`);
