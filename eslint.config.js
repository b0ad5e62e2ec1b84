// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Output is sorted as Go sorts strings, by UTF-8 bytes: JavaScript's default sort and `<` use
// UTF-16 order, and localeCompare the locale's.
const SORT_RULES = [
  {
    selector: 'CallExpression[callee.property.name=/^(sort|toSorted)$/][arguments.length=0]',
    message: 'Pass a comparator: compareUtf8 (src/go/utf8.ts) for strings, as Go sorts them.',
  },
  {
    selector: "CallExpression[callee.property.name='localeCompare']",
    message: 'Use compareUtf8 (src/go/utf8.ts): Go compares strings by their bytes.',
  },
];

// Only the command line (src/cli/) touches the process: its environment, working directory,
// arguments, streams, exit code and signals. The core takes them as options (cwd, env, signal).
// Facts about the runtime stay readable everywhere: the process id (names of owned temporary
// files), arch, platform, versions and config, and getBuiltinModule (a built-in module loaded when
// first needed).
const PROCESS_MESSAGE =
  'Only src/cli/ touches process: take cwd, env or signal as an option (docs/architecture.md).';
const PROCESS_RULES = [
  {
    selector:
      "MemberExpression[object.name='process']:not([property.name=/^(getBuiltinModule|pid|arch|platform|versions|config)$/])",
    message: PROCESS_MESSAGE,
  },
  {
    selector:
      "Identifier[name='process']:not(MemberExpression > Identifier.object):not(MemberExpression > Identifier.property):not(Property > Identifier.key)",
    message: PROCESS_MESSAGE,
  },
];

const GRPC_ONLY_IN_SERVER =
  'A gRPC library is imported only by tests: the catalog server speaks gRPC on node:http2 itself (docs/architecture.md).';
const GRPC_PATTERNS = [{ group: ['@grpc/*', '@connectrpc/*'], message: GRPC_ONLY_IN_SERVER }];

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
    // Rules that need the types: promises left floating, async functions that never wait, switches
    // that miss a case, conditions that cannot change, and a module imported twice.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-unnecessary-condition': 'error',
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // commander and chalk belong to the CLI layer only; a gRPC library to the server's tests only.
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      // And process, whose module is the global under another name.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            'commander',
            'chalk',
            { name: 'process', message: PROCESS_MESSAGE },
            { name: 'node:process', message: PROCESS_MESSAGE },
          ],
          patterns: GRPC_PATTERNS,
        },
      ],
    },
  },
  {
    // The catalog server's tests: the rule above without the gRPC libraries, their real clients.
    files: ['src/server/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            'commander',
            'chalk',
            { name: 'process', message: PROCESS_MESSAGE },
            { name: 'node:process', message: PROCESS_MESSAGE },
          ],
        },
      ],
    },
  },
  {
    // The command line may not load a gRPC library either: `opm serve` runs the server's.
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: GRPC_PATTERNS }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SORT_RULES] },
  },
  {
    // Worker entry points (*-worker.ts) included: what a worker needs comes in workerData. The
    // library's entry (index.ts) is an edge as cli/ is: it gives library callers the command line's
    // defaults (the process's environment).
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/cli/**', 'src/index.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SORT_RULES, ...PROCESS_RULES] },
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
