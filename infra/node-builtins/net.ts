/** `node:net` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { isIP } = process.getBuiltinModule('node:net');
