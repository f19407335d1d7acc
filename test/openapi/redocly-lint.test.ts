import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { createOpenApiDocument } from '../../src/openapi/index.js';

/**
 * `@redocly/cli lint` with its recommended rules, a linter nobody here wrote, passes the document
 * with no error and no warning: the generic one (as shipped) and an emulator's served copy, as
 * JSON and as YAML (what `messaging-webhooks openapi --yaml` prints).
 */
const run = promisify(execFile);
const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number; readonly ignored: number };
  readonly problems: readonly { readonly ruleId: string; readonly message: string }[];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-openapi-lint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lint(file: string): Promise<LintReport> {
  const { stdout } = await run(
    process.execPath,
    [REDOCLY, 'lint', file, '--extends', 'recommended', '--format', 'json'],
    {
      // no telemetry or update check: CI has no network, and the result must not depend on one
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as LintReport;
}

it.each([
  ['openapi.json', () => JSON.stringify(createOpenApiDocument(), null, 2)],
  ['openapi.yaml', () => stringify(createOpenApiDocument(), { aliasDuplicateObjects: false, lineWidth: 0 })],
  [
    'served.json',
    () =>
      JSON.stringify(
        createOpenApiDocument({
          server: { baseUrl: 'http://127.0.0.1:4010', prefixes: { messaging: '/api', chat: '/chat' } },
        }),
      ),
  ],
])('redocly lint (recommended) passes %s with no error and no warning', async (name, text) => {
  const file = join(dir, name);
  writeFileSync(file, text());
  const report = await lint(file);
  if (process.env.OPENAPI_REPORT === '1')
    process.stdout.write(`redocly lint ${name}: ${JSON.stringify(report)}\n`);
  expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
});
