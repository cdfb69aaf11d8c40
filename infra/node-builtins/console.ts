/** `node:console` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { Console } = process.getBuiltinModule('node:console');
