// Lint the page's script: `npm install eslint@9 @eslint/js@9 globals` somewhere, then run
// `npx eslint see_it.js` in this folder (it reads this file).  The script has no build step.
import js from "@eslint/js";
import globals from "globals";
export default [
  js.configs.recommended,
  { languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
    rules: { "no-unused-vars": "error", eqeqeq: "error", "prefer-const": "error", "no-var": "error" } },
];
