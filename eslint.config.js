// Lint: the recommended JavaScript and TypeScript rules everywhere, the React hooks rules for the UI.
// Formatting is Prettier's job (npm run format), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const useParser = 'Read times with parseAwareDateTime or instantMs (server/src/domain/time.ts).';
/** Date.parse, and Luxon's text readers, on the given objects. */
const dateTextReaders = (objects) =>
  objects.flatMap((object) =>
    (object === 'Date' ? ['parse'] : ['fromISO', 'fromSQL', 'fromRFC2822', 'fromHTTP', 'fromFormat']).map((property) => ({
      object,
      property,
      message: useParser,
    })),
  );
/** `new Date('…')` and `new Date(`…`)`: a Date read from text (identifiers cannot be told apart without types). */
const dateConstructedFromText = [
  { selector: "NewExpression[callee.name='Date'] > Literal[raw=/^['\"]/]", message: useParser },
  { selector: "NewExpression[callee.name='Date'] > TemplateLiteral", message: useParser },
];

export default tseslint.config(
  // Build output and run data, as in .gitignore.
  { ignores: ['**/dist/', 'build/', 'release/', 'data/', 'test/artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused names are dead code; a leading underscore marks a deliberately ignored argument.
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // One ISO 8601 parser (server/src/domain/time.ts) reads every time a user writes: Date.parse and
    // new Date(text) refuse a `+01` offset and read a time without offset as the machine's local
    // time, so a stored value would be checked one way and used another. The worker reads only
    // specs the server built; the renderer keeps Luxon for display and sends what people type to
    // the server as text, so neither is restricted here.
    files: ['server/src/**/*.ts', 'worker/src/**/*.ts'],
    ignores: ['server/src/domain/time.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': ['error', ...dateTextReaders(['Date'])],
      'no-restricted-syntax': ['error', ...dateConstructedFromText],
    },
  },
  {
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/domain/time.ts', '**/*.test.ts'],
    rules: { 'no-restricted-properties': ['error', ...dateTextReaders(['Date', 'DateTime'])] },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // A component over 100 lines is several: split it (the house rule, held here by the linter).
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false }],
    },
  },
);
