/** `node:path` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { join, sep } = process.getBuiltinModule('node:path');
