// Checks the package's Markdown files as a user gets them, in node_modules/messaging-webhooks/:
//
//   node scripts/check-docs.mjs [tarball]
//
// 1. Links. Every relative link in a shipped *.md resolves inside the package. Each file is read
//    with marked's lexer (links in code blocks and code spans do not count); each link or image
//    (inline, reference or HTML src/href) without a scheme must name a shipped file or folder, and a
//    #fragment into a Markdown file must be one of its headings, slugged as GitHub does
//    (github-slugger), or an id/name attribute.
// 2. Files shown in full. A fenced block whose info string carries `file=<path>` (one or more,
//    paths from the repository root) must equal each such file, byte for byte: docs that show a
//    consumer app of test/consumers/ show the code scripts/consumers.sh compiles and runs. Such a
//    block is not one of check-snippets.mjs's (its info string is not exactly `ts`), which compiles
//    each block alone, where its neighbours (`./app.js`, the app's tsconfig and installs) are missing.
//
// With a tarball (scripts/consumers.sh passes the one it tests) the files and their text come from
// the tarball itself; without one, the file list is `npm pack --dry-run --json` of this folder.
// The last line is "docs: N links checked in N files, N dead; N blocks shown as files, N differ";
// the exit code is non-zero when a link is dead or a block differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked } from 'marked';

const repo = join(import.meta.dirname, '..');
const tarball = process.argv[2];

/** The package's files (paths relative to its root, `/`-separated) and where to read them. */
function packageFiles() {
  if (tarball === undefined) {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--silent'], { cwd: repo, encoding: 'utf8' }),
    );
    return { root: repo, files: pack.files.map((file) => file.path), cleanup: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'check-docs-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('package/') && !line.endsWith('/'))
    .map((line) => line.slice('package/'.length));
  return { root: join(dir, 'package'), files, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The text a heading renders to (what GitHub slugs): inline markup dropped, link texts kept. */
function plainText(tokens) {
  return tokens
    .map((token) => (token.tokens ? plainText(token.tokens) : token.type === 'html' ? '' : token.text))
    .join('');
}

/** The anchors a Markdown text defines: its headings' slugs and explicit id/name attributes. */
function anchorsOf(tokens) {
  const slugger = new GithubSlugger();
  const anchors = new Set();
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText(token.tokens)));
    if (token.type === 'html')
      for (const [, id] of token.raw.matchAll(/\s(?:id|name)="([^"]+)"/g)) anchors.add(id);
  });
  return anchors;
}

/** Every link target in a Markdown text, code blocks and code spans excluded. */
function linksOf(tokens) {
  const links = [];
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') links.push(token.href);
    if (token.type === 'html')
      for (const [, href] of token.raw.matchAll(/\s(?:src|href)="([^"]+)"/g)) links.push(href);
  });
  return links;
}

const { root, files, cleanup } = packageFiles();
try {
  const shipped = new Set(files);
  const isFolder = (path) => files.some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`));
  const markdown = files.filter((file) => file.endsWith('.md'));
  const lexed = new Map(markdown.map((file) => [file, marked.lexer(readFileSync(join(root, file), 'utf8'))]));
  const anchors = new Map([...lexed].map(([file, tokens]) => [file, anchorsOf(tokens)]));

  let checked = 0;
  const dead = [];
  for (const [file, tokens] of lexed) {
    for (const href of linksOf(tokens)) {
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href)) continue; // https:, mailto:, protocol-relative
      checked += 1;
      const [rawPath, fragment] = href.split('#', 2);
      const path = decodeURI(rawPath);
      const target = path === '' ? file : posix.normalize(posix.join(dirname(file), path));
      if (target.startsWith('../') || target.startsWith('/') || !(shipped.has(target) || isFolder(target))) {
        dead.push(`${file}: ${href} (${target} is not in the package)`);
      } else if (
        fragment !== undefined &&
        anchors.has(target) &&
        !anchors.get(target).has(decodeURI(fragment))
      ) {
        dead.push(`${file}: ${href} (no heading #${fragment} in ${target})`);
      }
    }
  }
  let shown = 0;
  const differ = [];
  for (const [file, tokens] of lexed) {
    marked.walkTokens(tokens, (token) => {
      if (token.type !== 'code') return;
      for (const [, path] of (token.lang ?? '').matchAll(/\bfile=(\S+)/g)) {
        shown += 1;
        let text;
        try {
          text = readFileSync(join(repo, path), 'utf8');
        } catch {
          text = undefined;
        }
        // marked drops the block's last newline; a file ends with one.
        if (text !== `${token.text}\n`) differ.push(`${file}: the block shown as ${path} is not that file`);
      }
    });
  }

  for (const line of dead) console.log(`dead ${line}`);
  for (const line of differ) console.log(`differs ${line}`);
  console.log(
    `docs: ${checked} links checked in ${markdown.length} files, ${dead.length} dead; ` +
      `${shown} blocks shown as files, ${differ.length} differ`,
  );
  process.exitCode = dead.length === 0 && differ.length === 0 ? 0 : 1;
} finally {
  cleanup();
}
