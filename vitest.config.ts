import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        test: {
          name: 'shared-stack',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.sequential.test.ts'],
          // Integration and end-to-end files share one DynamoDB Local and one SQS emulator.
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: true,
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Files that start a whole runtime of their own (a second DynamoDB Local) run alone,
        // after the rest, so they never compete with the shared stack for the two cores.
        test: {
          name: 'own-runtime',
          include: ['test/**/*.sequential.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
