// Type-checks the TypeScript blocks of README.md and docs/*.md against the built package.
//
//   node scripts/check-snippets.mjs        (after `npm run build`)
//
// Each ```ts block becomes its own module under node_modules/.cache/snippets/; `messaging-webhooks`
// imports resolve to this package's exports (a package may import itself by name), so to dist/.
// The only additions are declarations of what a snippet leaves to the reader: the user's own
// functions and values (STUBS, global, so a snippet that defines the same name shadows them).
// One tsc run over all blocks; each error is reported at its line in the Markdown file.
// The last line is "snippets: N passed, N failed"; the exit code is non-zero when one fails.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const repo = join(import.meta.dirname, '..');
const out = join(repo, 'node_modules', '.cache', 'snippets');

/** Markdown files whose ```ts blocks are checked. */
const SOURCES = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const STUBS = `// What the snippets leave to the reader: declared, never defined.
type Express = import('express').Express;
declare function save(message: unknown): Promise<void>;
declare const onIncoming: NonNullable<import('messaging-webhooks').WebhookRouterOptions['onIncoming']>;
declare const handlers: import('messaging-webhooks/redis').WebhookWorkerOptions['handlers'];
declare const router: import('messaging-webhooks').WebhookRouter;
declare const webhooks: import('messaging-webhooks').WebhookRouter;
declare const app: Express;
declare const testApp: Express;
declare const token: string;
declare const receiverUrl: string;
declare const api: string;
declare const chatId: string;
declare const emulator: import('messaging-webhooks/emulator').Emulator;
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node', 'jest'],
    typeRoots: [join(repo, 'node_modules', '@types')],
  },
  include: ['*.ts'],
};

/** The ```ts blocks of a Markdown file: its text and the line (1-based) of its first code line. */
function blocksOf(file) {
  const lines = readFileSync(join(repo, file), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```ts\s*$/.test(lines[i])) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith('```')) end += 1;
    blocks.push({ file, line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
writeFileSync(join(out, 'stubs.d.ts'), STUBS);
// A module of the user's that a snippet imports (docs/redis.md: the worker's handlers).
writeFileSync(
  join(out, 'handlers.ts'),
  "export declare const handlers: import('messaging-webhooks/redis').WebhookWorkerOptions['handlers'];\n",
);

const snippets = [];
for (const file of SOURCES) {
  for (const block of blocksOf(file)) {
    const name = `${file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.ts`;
    // `export {}` makes a block without imports a module too, so blocks never share a scope.
    writeFileSync(join(out, name), `${block.code}\nexport {};\n`);
    snippets.push({ ...block, name, errors: [] });
  }
}

let output = '';
try {
  execFileSync(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', out, '--pretty', 'false'], {
    encoding: 'utf8',
  });
} catch (error) {
  output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
}
const unplaced = [];
let last; // the snippet of the previous error: an indented line continues its message
for (const text of output.split('\n').filter((l) => l.trim() !== '')) {
  const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(text);
  const snippet = match
    ? snippets.find((s) => match[1].endsWith(s.name))
    : /^\s/.test(text)
      ? last
      : undefined;
  if (snippet === undefined) unplaced.push(text);
  else if (match)
    snippet.errors.push(`${snippet.file}:${snippet.line + Number(match[2]) - 1}:${match[3]} ${match[4]}`);
  else snippet.errors.push(`  ${text.trim()}`);
  last = match ? snippet : last;
}

let failed = 0;
for (const snippet of snippets) {
  if (snippet.errors.length === 0) {
    console.log(`ok   ${snippet.file}:${snippet.line}`);
    continue;
  }
  failed += 1;
  console.log(`FAIL ${snippet.file}:${snippet.line}`);
  for (const line of snippet.errors) console.log(`     ${line}`);
}
if (unplaced.length > 0) {
  failed += 1;
  console.log(`FAIL tsc (${relative(repo, out)}):\n${unplaced.join('\n')}`);
}
console.log(`snippets: ${snippets.length - Math.min(failed, snippets.length)} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
