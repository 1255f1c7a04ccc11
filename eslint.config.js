// Lint catches what the compiler does not: promises nobody awaits or that go where a callback's
// result is ignored, switches that miss a member of a union, and type-only imports that would
// load a module at run time. Formatting is Prettier's alone (npm run format).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", ".build/", "node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { project: ["./tsconfig.test.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      // `typeof import("pg")` types the optional drivers that are loaded lazily, on first use.
      "@typescript-eslint/consistent-type-imports": ["error", { disallowTypeAnnotations: false }],
      // A leading underscore marks what is unused on purpose: a parameter an override ignores,
      // a property left out of a rest object.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // Terminal text is made and checked with its escape and control characters on purpose.
      "no-control-regex": "off",
    },
  },
  {
    // Modules with a hand-written .d.mts beside them: TypeScript takes the declaration and leaves
    // the module out of its program, so the rules that need types cannot see these files.
    files: ["bench/lib/project.mjs", "bench/lib/rows.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
);
