import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', '.paasmon/', 'tmp/', '**/target/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    plugins: { '@stylistic': stylistic },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
      // Prettier (.prettierrc.json) formats at 120; this also holds strings and comments to it.
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true }],
    },
  },
  {
    // The product's modules stay small enough to read whole (tests and their data tables aside).
    files: [
      'core/**/*.js',
      'collector/**/*.js',
      'exporters/**/*.js',
      'loadgen/**/*.js',
      'report/**/*.js',
      'sandbox/**/*.js',
      'dashboards/**/*.js',
      'bench/**/*.js',
    ],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  {
    // Test data lines (gorouter log lines, expected table rows, output regexes, the sandbox's SQL and
    // access-log lines) read better whole, and so do the dashboards' queries and panel descriptions.
    files: ['test/**/*.js', 'sandbox/**/*.js', 'dashboards/**/*.js'],
    rules: {
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          ignoreUrls: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
];
