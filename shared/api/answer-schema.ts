import { builtOnFirstUse } from './zod.ts';

/**
 * A schema of what the service answers or sends (a response body, a webhook payload): built
 * the first time something reads it (the contract generator, a test, a parse), never while a
 * function starts. A function validates requests, not its own answers, so building these at
 * load only lengthened every cold start: a domain's schema module held hundreds of zod
 * instances its functions never use (README, performance: cold start).
 */
export const answerSchema = builtOnFirstUse;
