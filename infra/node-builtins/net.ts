/** `node:net` for the bundles, taken from the runtime as CommonJS (see https.ts). */
export const { isIP, isIPv4, isIPv6 } = process.getBuiltinModule('node:net');
