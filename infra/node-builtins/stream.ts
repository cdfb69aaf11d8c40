/** `node:stream` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { PassThrough, Readable, Writable } = process.getBuiltinModule('node:stream');
