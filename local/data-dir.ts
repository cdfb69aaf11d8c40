import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the local runtime keeps its data, credentials and endpoints; LOCAL_DATA_DIR moves it. */
export const localDataDir = (): string => resolve(process.env.LOCAL_DATA_DIR ?? fileURLToPath(new URL('../.local', import.meta.url)));
