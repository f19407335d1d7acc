/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm', // .ts files compiled as ES modules
  testEnvironment: 'node',
  // TypeScript's ESM imports name the .js file ('./app.js'); jest finds app.ts by the name without it.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
