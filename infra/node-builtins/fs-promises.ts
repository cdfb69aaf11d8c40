/** `node:fs/promises` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { readFile } = process.getBuiltinModule('node:fs/promises');
