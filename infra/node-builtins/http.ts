/** `node:http` for the bundles, taken from the runtime as CommonJS: see https.ts (an ESM import reads its lazy getters, and they load undici). */
const http = process.getBuiltinModule('node:http');
export default http;
export const { Agent, request, get, globalAgent, STATUS_CODES } = http;
