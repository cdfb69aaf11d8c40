/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias,
 * infra/bundling.ts). Lambda hands every function its role's credentials in environment
 * variables, so the rest of the default chain (SSO, INI files, STS web identity, process,
 * instance metadata, with the nested STS and SSO clients they bring) is ~90 KiB of every
 * bundle that can never run there. Outside the bundles (local runtime, tests, admin CLI) the
 * SDK keeps its full default chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
