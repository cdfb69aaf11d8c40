/** `node:process` for the bundles: the global `process` (see https.ts). */
export const { env, versions } = process;
