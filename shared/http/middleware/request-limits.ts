/** Request limits of spec section 8, checked before anything reads the body: size and media type. */
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.ts';
import { MAX_BODY_BYTES } from '../limits.ts';
import type { HttpMiddleware } from './types.ts';

export const requestLimits: HttpMiddleware = {
  before: ({ context: { http } }) => {
    if (http.body.length > MAX_BODY_BYTES) {
      throw new PayloadTooLargeError(`The request body exceeds ${MAX_BODY_BYTES} bytes; split large imports.`);
    }
    const mediaType = http.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (http.body.length > 0 && mediaType !== 'application/json') {
      throw new UnsupportedMediaTypeError('A request with a body must have Content-Type: application/json.');
    }
  },
};
