// Lint: ESLint's and typescript-eslint's type-aware recommendations, and the house rules the type checker cannot see.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      // A name that starts with `_` is unused on purpose: a field taken out of an object by a rest, a parameter kept for its place.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Fastify's handlers and hooks, and the script's facade methods, are async by contract, awaited or not.
      '@typescript-eslint/require-await': 'off',
      // Checking text for control characters is what the JSON guards, the address checks and the CSV export are for.
      'no-control-regex': 'off',
    },
  },
  {
    // Build scripts, benches, the demo's page code and examples: plain JavaScript, which no project type-checks.
    files: ['**/*.{js,mjs,cjs,jsx}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
  {
    // Lit binds a template's event listeners to their element, so a method passed as `@click=${this.close}` keeps its `this`.
    files: ['src/**/*.ts', 'tools/**/*.ts', 'test/components/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // The script runs in customers' pages: it never writes to their console, and never throws into them. A throw that
    // a caller inside the script catches, or the misuse `init` reports by contract, carries a comment that says so.
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ThrowStatement',
          message: 'The script never throws into the host page: return the failure, or report it.',
        },
      ],
    },
  },
  {
    // Tests read answers as JSON, whose values are `any` by nature, and hand browsers code as text to run in the page.
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-implied-eval': 'off',
    },
  },
);
