// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const GRPC_ONLY_IN_SERVER = 'A gRPC library is imported only in src/server/ (docs/architecture.md).';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/out/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // commander and chalk belong to the CLI layer only.
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', 'src/server/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['commander', 'chalk'],
          patterns: [{ group: ['@grpc/*', '@connectrpc/*'], message: GRPC_ONLY_IN_SERVER }],
        },
      ],
    },
  },
  {
    // The catalog server is no exception to the rule above: only the gRPC libraries are its own.
    files: ['src/server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['commander', 'chalk'] }] },
  },
  {
    // A gRPC library belongs to the catalog server only; the CLI layer may not load one either.
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@grpc/*', '@connectrpc/*'], message: GRPC_ONLY_IN_SERVER }] },
      ],
    },
  },
  {
    // Output is sorted as Go sorts strings, by UTF-8 bytes: JavaScript's default sort and `<` use
    // UTF-16 order, and localeCompare the locale's.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(sort|toSorted)$/][arguments.length=0]',
          message: 'Pass a comparator: compareUtf8 (src/go/utf8.ts) for strings, as Go sorts them.',
        },
        {
          selector: "CallExpression[callee.property.name='localeCompare']",
          message: 'Use compareUtf8 (src/go/utf8.ts): Go compares strings by their bytes.',
        },
      ],
    },
  },
  {
    // The dependency checker's configuration is CommonJS, as dependency-cruiser loads it.
    files: ['.dependency-cruiser.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // bin/ is CommonJS (bin/package.json).
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/cli/main.ts', 'src/cli/output.ts', 'bench/**', 'test/**', 'bin/**', '**/*.test.ts'],
    rules: { 'no-console': 'off' },
  },
);
