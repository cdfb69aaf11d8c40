/** DynamoDB's TTL (TABLE_DEFINITION.ttlAttribute) is in Unix seconds: the one conversion to it. */
export const epochSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/** The TTL value of an item kept `seconds` after `at`. */
export const expiresAfter = (at: Date, seconds: number): number => epochSeconds(at) + seconds;
