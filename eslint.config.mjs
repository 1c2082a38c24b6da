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
    // Build scripts, benches, the demo's page code and examples: plain JavaScript, which no project type-checks.
    files: ['**/*.{js,mjs,cjs,jsx}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // The script runs in customers' pages: it never writes to their console, and never throws into them. A throw
    // that a caller inside the script catches carries a comment that says which.
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': ['error', { selector: 'ThrowStatement', message: 'The script never throws into the host page; return or report the error instead.' }],
    },
  },
  {
    // Tests read answers as JSON, whose values are `any` by nature: member access on them is what a test does.
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
