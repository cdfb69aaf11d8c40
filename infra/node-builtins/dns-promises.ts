/** `node:dns/promises` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { lookup } = process.getBuiltinModule('node:dns/promises');
