/** Request limits of spec section 8. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
