import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'docs-api/',
      '.dependency-cruiser.cjs',
      'node_modules/',
      'coverage/',
      'bench/results/',
      '*.config.js',
      // apps built and linted by nothing but their own tsc, against the packed tarball
      'test/consumers/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // the CLI's one way out to the terminal is src/cli/output.ts (it escapes control characters)
    files: ['src/cli/**/*.ts'],
    ignores: ['src/cli/output.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name=/^(stdout|stderr)$/][property.name=/^(write|end)$/]",
          message: 'Write through the CliIo of src/cli/output.ts: it escapes control characters.',
        },
        {
          selector: "CallExpression[callee.property.name='destination'][callee.object.name='pino']",
          message:
            'Log through a stream that writes to CliIo.err: pino.destination bypasses the escaping writer.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // the benchmark and reliability programs: plain Node ESM, outside the TypeScript project
    files: ['bench/**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'Buffer',
          'URL',
          'clearInterval',
          'clearTimeout',
          'console',
          'fetch',
          'performance',
          'process',
          'setImmediate',
          'setInterval',
          'setTimeout',
          'structuredClone',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // build and CI scripts: plain Node ESM, outside the TypeScript project
    files: ['scripts/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);
