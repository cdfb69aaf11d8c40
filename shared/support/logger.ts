/**
 * The structured JSON logger. Log lines carry request id, tenant, route and correlation id;
 * never a secret, signature, phone number or request body (callers log ids and counts only).
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'commerce-interface' });
