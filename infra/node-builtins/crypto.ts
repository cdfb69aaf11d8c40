/**
 * `node:crypto` for the bundles, taken from the runtime as CommonJS (see https.ts): its ESM
 * facade reads every export once, `webcrypto` and `subtle` among them, which load Web Crypto.
 */
export const { createHash, createHmac, getRandomValues, randomBytes, randomInt, randomUUID, timingSafeEqual } = process.getBuiltinModule('node:crypto');
