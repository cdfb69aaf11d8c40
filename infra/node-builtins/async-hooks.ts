/** `node:async_hooks` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { AsyncLocalStorage } = process.getBuiltinModule('node:async_hooks');
