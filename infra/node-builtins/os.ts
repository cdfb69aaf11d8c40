/** `node:os` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { homedir, platform, release } = process.getBuiltinModule('node:os');
