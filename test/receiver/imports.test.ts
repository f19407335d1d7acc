/**
 * What each entry point loads at run time, read from the sources: the root import never loads
 * Fastify (it is an optional peer, behind `messaging-webhooks/fastify`), and the fetch handler
 * loads no module the framework-free pipeline does not already load (it must run where only web
 * APIs and the pipeline's few node: modules exist).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Specifiers a module loads at run time: `import type` and `export type` are erased, all else stays. */
function runtimeSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const statement = /^(import|export)\s+(type\s+)?([^;]*?\s+from\s+)?'([^']+)';/gms;
  for (const match of text.matchAll(statement)) {
    const [, , typeOnly, , specifier] = match;
    if (typeOnly === undefined && specifier !== undefined) found.push(specifier);
  }
  return found;
}

/** The packages and node: modules reachable at run time from `entry`, following relative imports. */
function externalsOf(entry: string): Set<string> {
  const externals = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeSpecifiers(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else externals.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return externals;
}

describe('what the entry points load', () => {
  it('reads imports the way TypeScript emits them', () => {
    expect([...externalsOf('receiver/fastify.ts')]).toEqual(expect.arrayContaining(['fastify-plugin']));
    expect([...externalsOf('receiver/fastify.ts')]).not.toContain('fastify');
  });

  it('the root import loads neither Fastify, fastify-plugin, Hono nor prom-client', () => {
    const root = [...externalsOf('index.ts')];
    expect(root).toEqual(expect.arrayContaining(['zod', 'p-queue']));
    expect([...externalsOf('metrics/index.ts')]).toContain('prom-client');
    for (const name of ['fastify', 'fastify-plugin', 'hono', '@hono/node-server', 'prom-client'])
      expect(root).not.toContain(name);
  });

  it('the root import and every other entry point but messaging-webhooks/otel load no @opentelemetry package', () => {
    expect([...externalsOf('otel/index.ts')]).toContain('@opentelemetry/api');
    for (const entry of ['index.ts', 'redis/index.ts', 'metrics/index.ts', 'receiver/fastify.ts']) {
      expect([...externalsOf(entry)].filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
    }
  });

  it('the Hono adapter loads Hono, never @hono/node-server (it runs on Workers, Bun and Deno too)', () => {
    const hono = [...externalsOf('hono/index.ts')];
    expect(hono).toContain('hono');
    expect(hono.filter((name) => name.startsWith('@hono/'))).toEqual([]);
  });

  it('the Lambda adapter loads no AWS package, and nothing the pipeline does not load but node:http', () => {
    const pipeline = externalsOf('pipeline/index.ts');
    const lambda = [...externalsOf('lambda/index.ts')];
    expect(lambda.filter((name) => !pipeline.has(name))).toEqual(['node:http']);
  });

  it('the fetch handler loads nothing the pipeline does not already load', () => {
    const pipeline = externalsOf('pipeline/index.ts');
    const fetchHandler = [...externalsOf('receiver/fetch.ts')];
    expect(fetchHandler.filter((name) => !pipeline.has(name))).toEqual([]);
  });
});
