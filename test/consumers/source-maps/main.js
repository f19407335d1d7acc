// Source maps resolve inside the installed package: run with --enable-source-maps, a stack trace
// through the library names its shipped src/*.ts files, and every declaration map of a subpath
// points at a shipped .ts file (editors' go-to-definition lands in TypeScript).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createWebhookRouter } from 'messaging-webhooks';

const pkg = dirname(createRequire(import.meta.url).resolve('messaging-webhooks/package.json'));
const problems = [];

let stack = '';
try {
  createWebhookRouter({ maxQueueSize: -1 }); // rejected at construction
  problems.push('createWebhookRouter({ maxQueueSize: -1 }) did not throw');
} catch (error) {
  stack = String(error.stack);
}
const frames = [...stack.matchAll(/\((\/[^()]+?\.ts):\d+:\d+\)/g)].map((m) => m[1]);
const libraryFrames = frames.filter((file) => file.startsWith(join(pkg, 'src')));
if (libraryFrames.length === 0) problems.push(`no frame in ${join(pkg, 'src')}:\n${stack}`);
for (const file of libraryFrames) if (!existsSync(file)) problems.push(`stack names a missing file: ${file}`);

for (const entry of ['.', 'schemas', 'emulator', 'testing', 'client', 'redis', 'fastify']) {
  for (const map of ['index.d.ts.map', 'index.js.map']) {
    const path = join(pkg, 'dist', entry, map);
    const { sources } = JSON.parse(readFileSync(path, 'utf8'));
    for (const source of sources) {
      if (!existsSync(resolve(dirname(path), source))) problems.push(`${path}: ${source} not shipped`);
    }
  }
}

if (problems.length > 0) {
  console.error('source-maps: FAIL', problems);
  process.exit(1);
}
console.log(`source-maps: ok (stack names ${libraryFrames.length} shipped .ts files; 12 maps resolve)`);
