import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration and end-to-end files share one DynamoDB Local and one SQS emulator.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
