import { notImplementedOperation } from '../../../shared/http/not-implemented.ts';

export const { contract, handler } = notImplementedOperation('getCustomer');
