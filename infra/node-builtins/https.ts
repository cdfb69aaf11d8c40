/**
 * `node:https` for the bundles, taken from the runtime as CommonJS. Imported as ESM (the AWS
 * SDK's HTTP handler does: `import https from "node:https"`), a builtin gets a module facade
 * that reads every export once, and node:http's lazy getters then load undici: about 15 ms of
 * every cold start, for nothing a function uses.
 */
const https = process.getBuiltinModule('node:https');
export default https;
export const { Agent, request, get, globalAgent } = https;
