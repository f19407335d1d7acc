/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  // apps run by scripts/consumers.sh against the packed tarball, each with its own runner
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumers/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The examples import the package by name, as an app does; here that name is src/ (tsconfig `paths`).
    '^messaging-webhooks$': '<rootDir>/src/index.ts',
    '^messaging-webhooks/(schemas|emulator|testing|client|redis|fastify|hono|lambda|metrics|otel|relay|cloudflare|adapter)$':
      '<rootDir>/src/$1/index.ts',
  },
  testTimeout: 30000,
};
