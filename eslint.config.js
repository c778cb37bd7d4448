// ESLint: typescript-eslint's recommended rules with type information, over the code, the tests and
// the scripts (npm run lint; .ci/run runs it before the tests). Formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'scripts/.*'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json', './web/explorer/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Not held yet: String() and template literals of unknown values are deliberate here (ids,
      // DuckDB values), zod and Express hand methods around, and untyped JSON is read in places.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Held next, once the branches in flight have landed (it rewrites lines across the tree).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Control characters are what the CLI's escaping of a drop's text looks for.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Tests hand vitest promises it awaits itself; tests and scripts read untyped JSON answers.
    files: ['test/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
