import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** node:fs and its promise API, under every name they are imported by. */
const FS_MODULES = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
const FS_MODULE_PATTERN = '/^(node:)?fs(\\u002Fpromises)?$/';
/** The functions of node:fs that create, change or open files and directories. */
const FS_WRITES = [
  'appendFile',
  'appendFileSync',
  'chmod',
  'chmodSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
  'createWriteStream',
  'link',
  'linkSync',
  'mkdir',
  'mkdirSync',
  'mkdtemp',
  'mkdtempSync',
  'open',
  'openSync',
  'opendir',
  'rename',
  'renameSync',
  'rm',
  'rmSync',
  'rmdir',
  'rmdirSync',
  'symlink',
  'symlinkSync',
  'truncate',
  'truncateSync',
  'unlink',
  'unlinkSync',
  'write',
  'writeFile',
  'writeFileSync',
  'writeSync',
  'writev',
  'writevSync',
];
const FS_MESSAGE =
  'Write files through src/util/files.ts (owner-only modes, no symbolic links, regular files only, no FIFO waits)';

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
    rules: {
      'no-console': 'error',
      // One way out for files: src/util/files.ts opens every file the library or CLI writes (0600
      // files, 0700 directories, O_EXCL|O_NOFOLLOW temporary files renamed into place, regular
      // files only, never waiting on a FIFO). A write call of node:fs anywhere else is refused.
      'no-restricted-imports': [
        'error',
        ...FS_MODULES.map((name) => ({ name, importNames: FS_WRITES, message: FS_MESSAGE })),
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: `ImportDeclaration[source.value=${FS_MODULE_PATTERN}] > :matches(ImportNamespaceSpecifier, ImportDefaultSpecifier)`,
          message: `${FS_MESSAGE} (import the functions you read with by name)`,
        },
        {
          selector: `ImportExpression[source.value=${FS_MODULE_PATTERN}]`,
          message: FS_MESSAGE,
        },
      ],
    },
  },
  {
    files: ['src/util/files.ts'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
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
