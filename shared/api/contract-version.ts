/** The contract version (spec 9.2): returned by GET /capabilities and `info.version` of contract/openapi.json; raised on every contract change (contract/CHANGELOG.md). */
export const CONTRACT_VERSION = '2026.12.07-draft.1';
