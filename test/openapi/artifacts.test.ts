import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { createEmulator } from '../../src/emulator/index.js';
import { createOpenApiDocument, jsonSchemaFiles, standaloneJsonSchema } from '../../src/openapi/index.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

/**
 * The shipped artifacts are what the schemas generate now: the built dist/openapi.json and
 * dist/schemas/json/*.json (CI builds before testing; locally run `npm run build` first), the
 * CLI's output (JSON and YAML), and the emulator's served copy, whose only differences are its
 * server and its prefixes in the paths. package.json exports them under the documented names.
 */
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const readJson = (path: string): unknown => JSON.parse(readFileSync(repo(path), 'utf8'));

const document = createOpenApiDocument();

describe('the built artifacts', () => {
  beforeAll(() => {
    assertBuilt();
    if (!existsSync(repo('dist/openapi.json')))
      throw new Error('dist/openapi.json is missing: run `npm run build`');
  });

  it('dist/openapi.json is the document the schemas generate', () => {
    expect(readJson('dist/openapi.json')).toEqual(document);
  });

  it('dist/schemas/json holds exactly one file per payload type and resource, each what the schemas generate', () => {
    const files = jsonSchemaFiles();
    expect(readdirSync(repo('dist/schemas/json')).sort()).toEqual(
      Object.keys(files)
        .map((f) => `${f}.json`)
        .sort(),
    );
    for (const [file, id] of Object.entries(files)) {
      expect({ file, schema: readJson(`dist/schemas/json/${file}.json`) }).toEqual({
        file,
        schema: standaloneJsonSchema(id),
      });
    }
  });

  it('package.json exports them as messaging-webhooks/openapi.json and messaging-webhooks/schemas/json/<name>.json', () => {
    const { exports } = readJson('package.json') as { exports: Record<string, unknown> };
    expect(exports['./openapi.json']).toBe('./dist/openapi.json');
    expect(exports['./schemas/json/*.json']).toBe('./dist/schemas/json/*.json');
  });

  it('`messaging-webhooks openapi` prints it, and `--yaml` the same document as YAML', async () => {
    const json = await runCli(['openapi']);
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual(document);
    const yaml = await runCli(['openapi', '--yaml']);
    expect({ code: yaml.code, stderr: yaml.stderr }).toEqual({ code: 0, stderr: '' });
    expect(yaml.stdout.startsWith('openapi: 3.1.0\n')).toBe(true);
    expect(parseYaml(yaml.stdout)).toEqual(document);
  });
});

describe('the payload type and resource files', () => {
  it.each(Object.entries(jsonSchemaFiles()))(
    '%s.json is a standalone JSON Schema 2020-12 (%s)',
    (_file, id) => {
      const schema = standaloneJsonSchema(id);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.title).toBe(id);
      // every reference resolves inside the file
      const refs = JSON.stringify(schema).match(/"\$ref":"[^"]*"/g) ?? [];
      for (const ref of refs) expect(ref).toMatch(/^"\$ref":"#(\/\$defs\/\w+)?"$/);
    },
  );
});

describe('the emulator', () => {
  it('serves the document at /_emulator/openapi.json, its server the emulator with its prefixes', async () => {
    const emulator = createEmulator({
      seed: 'empty',
      messagingPrefix: '/api',
      chatPrefix: '/live',
      allowedHosts: ['emulator.test'],
    });
    const response = await request(emulator.listener)
      .get('/_emulator/openapi.json')
      .set('host', 'emulator.test:4010')
      .expect(200)
      .expect('content-type', /json/);
    await emulator.close();
    const { servers, paths, 'x-path-prefixes': prefixes, ...rest } = response.body as typeof document;
    const { servers: _servers, paths: _paths, 'x-path-prefixes': _prefixes, ...expected } = document;
    expect(rest).toEqual(expected);
    expect(servers).toEqual([{ url: 'http://emulator.test:4010', description: 'This emulator.' }]);
    expect(prefixes).toEqual({ messaging: '/api', chat: '/live' });
    // the same operations, each under the emulator's own prefix
    const prefixed = (path: string): string =>
      path.startsWith('/chat/') ? `/live${path.slice('/chat'.length)}` : `/api${path}`;
    expect(Object.keys(paths)).toEqual(Object.keys(document.paths).map(prefixed));
    for (const [path, item] of Object.entries(document.paths)) {
      expect(paths[prefixed(path)]).toEqual(item);
    }
  });

  it('links it from the inspector page', async () => {
    const emulator = createEmulator({ seed: 'empty' });
    const page = await request(emulator.listener).get('/_emulator').set('accept', 'text/html').expect(200);
    await emulator.close();
    expect(page.text).toContain('<a href="/_emulator/openapi.json">OpenAPI document</a>');
  });
});
