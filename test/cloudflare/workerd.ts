// Runs Worker scripts in workerd through miniflare: a script is bundled with esbuild the way
// wrangler bundles a Worker (ESM; the workerd, worker and browser conditions; node:* left to the
// runtime's nodejs_compat), with the package's entries resolved to src/, so these tests need no
// build. The consumer app test/consumers/cloudflare-worker does the same from the packed tarball.
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { Log, LogLevel, Miniflare, type MiniflareOptions } from 'miniflare';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The runtime the docs name: nodejs_compat, and a compatibility date from which workerd has
 * node:perf_hooks built in (docs/cloudflare.md).
 */
const COMPATIBILITY = {
  compatibilityDate: '2026-04-01',
  compatibilityFlags: ['nodejs_compat'],
} as const;

/** The package's entries, as the bundle resolves them: src/ (esbuild reads `./x.js` as `./x.ts`). */
const ALIAS = {
  'messaging-webhooks/client': `${ROOT}src/client/index.ts`,
  'messaging-webhooks/cloudflare': `${ROOT}src/cloudflare/index.ts`,
  'messaging-webhooks/schemas': `${ROOT}src/schemas/index.ts`,
  'messaging-webhooks': `${ROOT}src/index.ts`,
};

export interface Bundle {
  readonly code: string;
  readonly metafile: Metafile;
}

/** Bundles a Worker's source (ESM, importing `messaging-webhooks` and its subpaths). */
export async function bundleWorker(source: string, options: { minify?: boolean } = {}): Promise<Bundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts', sourcefile: 'worker.ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    alias: ALIAS,
    minify: options.minify === true,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]!.text, metafile: result.metafile };
}

/** A running workerd, and what it printed on stderr (a start-up error names its cause there). */
export interface Workerd {
  readonly mf: Miniflare;
  /** stderr of workerd so far. */
  stderr(): string;
  /** Waits until `check` holds (polled; no timing assertion), or fails after `timeoutMs` naming `what`. */
  until(what: string, check: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Starts workerd with `script` as the main module. `options` adds bindings, queues, Durable
 * Objects (miniflare's options for one Worker).
 */
export async function startWorkerd(
  script: string,
  options: Partial<MiniflareOptions> = {},
): Promise<Workerd> {
  let stderr = '';
  const mf = new Miniflare({
    ...COMPATIBILITY,
    modules: true,
    script,
    // A placeholder Request.cf: outside NODE_ENV=test miniflare would download one from Cloudflare.
    cf: false,
    log: new Log(LogLevel.NONE),
    handleRuntimeStdio(stdout: Readable, err: Readable) {
      stdout.resume();
      err.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
    },
    ...options,
  } as MiniflareOptions);
  try {
    await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw new Error(`workerd did not start: ${String(error)}\n${stderr}`, { cause: error });
  }
  return {
    mf,
    stderr: () => stderr,
    async until(what, check, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (await check()) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    dispose: () => mf.dispose(),
  };
}

/** The files a bundle was made of (paths relative to the repository). */
export function inputsOf(bundle: Bundle): string[] {
  return Object.keys(Object.values(bundle.metafile.outputs)[0]!.inputs);
}
