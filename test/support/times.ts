/**
 * A contact time far enough ahead that no test order is called while it runs, and within the
 * contact horizon (CONTACT_HORIZON_DAYS): 09:00 UTC on a Wednesday about 200 days from now, a
 * calling hour of every market the tests configure, so scheduling keeps it as it is.
 */
function laterContactTime(): Date {
  const at = new Date(Date.now() + 200 * 86_400_000);
  at.setUTCHours(9, 0, 0, 0);
  while (at.getUTCDay() !== 3) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

export const LATER_DATE = laterContactTime();
/** LATER_DATE as a partner sends it (no milliseconds). */
export const LATER = LATER_DATE.toISOString().replace('.000Z', 'Z');
/** LATER_DATE as the service answers it. */
export const LATER_UTC = LATER_DATE.toISOString();
/** The calendar day (UTC) `days` away from LATER_DATE, as YYYY-MM-DD. */
export const dayFromLater = (days: number) => new Date(LATER_DATE.getTime() + days * 86_400_000).toISOString().slice(0, 10);
