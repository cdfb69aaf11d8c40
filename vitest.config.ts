import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        // Pure logic, the middleware, order processing on in-memory ports, the architecture and
        // the repository's own rules: no Java, no emulator, no stack. `npm run test:unit` runs these.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          fileParallelism: true,
          testTimeout: 20_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'shared-stack',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/infra/**/*.test.ts'],
          exclude: ['test/**/*.sequential.test.ts'],
          // Integration and end-to-end files share one DynamoDB Local and one SQS emulator.
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: true,
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
