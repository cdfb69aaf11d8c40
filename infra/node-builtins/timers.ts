/** `node:timers` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate } = process.getBuiltinModule('node:timers');
