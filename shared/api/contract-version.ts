/** The contract version (spec 9.2): returned by GET /capabilities and `info.version` of contract/openapi.json. */
export const CONTRACT_VERSION = '2026.11.22-draft.1';
