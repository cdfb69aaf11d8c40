/** `node:timers` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { setTimeout } = process.getBuiltinModule('node:timers');
