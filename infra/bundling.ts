/**
 * How every function is bundled, in one place: the CDK app passes it to NodejsFunction and
 * the cold-start benchmark builds the same bundles with esbuild to measure them.
 */
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

export const BUNDLE_OPTIONS = {
  minify: true,
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  /**
   * Module replacements (esbuild's alias): the SDK's credential chain, cut to what Lambda uses;
   * node:http and node:https taken as CommonJS, without the ESM facade whose reading of their
   * lazy getters loads undici at every cold start (node-builtins/https.ts); so are the builtins
   * only the functions' own code and Powertools import (async_hooks, console, timers, and net and
   * dns for the webhook URL checks), each facade a millisecond or so of every cold start, and
   * those the SDK imports by name (fs, fs/promises, crypto, stream, os, path,
   * process: about 2 ms of every cold start, the benchmark's floor's too). Not zlib: the SDK
   * reads it through a namespace, feature-testing `crc32`, which a shim lacking it would turn
   * into a silent fallback. A shim exports the names in use: esbuild fails the build on an
   * import of any other, and the bundling test builds every function. And
   * Powertools' JMESPath, cut to the one form the idempotency configuration uses
   * (powertools-jmespath.ts).
   */
  alias: {
    '@aws-sdk/credential-provider-node': fileURLToPath(new URL('./lambda-credentials.ts', import.meta.url)),
    'node:http': fileURLToPath(new URL('./node-builtins/http.ts', import.meta.url)),
    'node:https': fileURLToPath(new URL('./node-builtins/https.ts', import.meta.url)),
    'node:async_hooks': fileURLToPath(new URL('./node-builtins/async-hooks.ts', import.meta.url)),
    'node:console': fileURLToPath(new URL('./node-builtins/console.ts', import.meta.url)),
    'node:timers': fileURLToPath(new URL('./node-builtins/timers.ts', import.meta.url)),
    'node:net': fileURLToPath(new URL('./node-builtins/net.ts', import.meta.url)),
    'node:dns/promises': fileURLToPath(new URL('./node-builtins/dns-promises.ts', import.meta.url)),
    'node:fs': fileURLToPath(new URL('./node-builtins/fs.ts', import.meta.url)),
    'node:fs/promises': fileURLToPath(new URL('./node-builtins/fs-promises.ts', import.meta.url)),
    'node:crypto': fileURLToPath(new URL('./node-builtins/crypto.ts', import.meta.url)),
    'node:stream': fileURLToPath(new URL('./node-builtins/stream.ts', import.meta.url)),
    'node:os': fileURLToPath(new URL('./node-builtins/os.ts', import.meta.url)),
    'node:path': fileURLToPath(new URL('./node-builtins/path.ts', import.meta.url)),
    'node:process': fileURLToPath(new URL('./node-builtins/process.ts', import.meta.url)),
    '@aws-lambda-powertools/jmespath': fileURLToPath(new URL('./powertools-jmespath.ts', import.meta.url)),
    '@aws-lambda-powertools/jmespath/functions': fileURLToPath(new URL('./powertools-jmespath.ts', import.meta.url)),
  },
} as const;

/**
 * Whether the AWS SDK v3 is bundled (tree-shaken, pinned by package-lock.json) or left to the
 * Lambda runtime's own copy. Chosen by the cold-start benchmark's figures (README, performance).
 */
export const SDK_EXTERNAL_MODULES: string[] = [];

/**
 * Left out of the bundle unless the stack traces AWS calls (`traceAwsCalls`): the composition
 * root imports it dynamically, only then, so a bundle without it never reaches the import.
 */
export const TRACING_MODULES = ['@aws-lambda-powertools/tracer'];

/**
 * esbuild's options for one function's bundle, the settings CDK bundles it with
 * (parts/commerce-function.ts), for the benchmarks and tests that build bundles themselves.
 * The tracer is left out, as deployed by default.
 */
export const functionBuildOptions = (external: readonly string[] = []): BuildOptions => ({
  bundle: true,
  platform: 'node',
  minify: BUNDLE_OPTIONS.minify,
  format: BUNDLE_OPTIONS.format,
  target: BUNDLE_OPTIONS.target,
  mainFields: [...BUNDLE_OPTIONS.mainFields],
  banner: { js: BUNDLE_OPTIONS.banner },
  alias: { ...BUNDLE_OPTIONS.alias },
  external: [...external, ...TRACING_MODULES],
  logLevel: 'silent',
});

/**
 * The NODE_OPTIONS a function is deployed with: `--enable-source-maps` only when the stack maps
 * stack traces to the sources (`sourceMapsInStackTraces`), since Node then reads the bundle's
 * source map at every cold start; none otherwise. The cold-start benchmark starts bundles so.
 */
export const functionNodeOptions = (sourceMapsInStackTraces: boolean): string | undefined => (sourceMapsInStackTraces ? '--enable-source-maps' : undefined);
