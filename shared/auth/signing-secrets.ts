/**
 * The secrets the service signs outgoing requests with (webhook deliveries, write-backs): their
 * form, and which of them sign during a rotation's overlap.
 */
import { randomBytes } from 'node:crypto';

/** Svix's and Standard Webhooks' form: `whsec_` and 24 random bytes in (standard) base64, which their libraries read as the key. */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** A secret as kept: the current one and, after a rotation, the previous one until its overlap ends. */
export interface RotatedSecret {
  secret: string;
  previous_secret?: string | undefined;
  previous_secret_expires_at?: string | undefined;
}

/** The secrets a request is signed with now: the current one and, during an overlap, the previous one. */
export function activeSecrets(s: RotatedSecret, now: Date): { current: string; previous?: string } {
  const overlap = s.previous_secret && s.previous_secret_expires_at && Date.parse(s.previous_secret_expires_at) > now.getTime();
  return overlap ? { current: s.secret, previous: s.previous_secret! } : { current: s.secret };
}
