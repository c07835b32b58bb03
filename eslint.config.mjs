// ESLint flat config: TypeScript rules with type information, plus Pulumi's rules
// (which catch an Output used inside a template string).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import pulumi from "@pulumi/eslint-plugin";

export default tseslint.config(
  { ignores: ["node_modules/**", "out/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@pulumi": pulumi },
    rules: {
      "@pulumi/no-output-in-template-literal": "error",
      "@pulumi/no-output-instance-in-template-literal": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      // Scripts the workflows run with plain Node (before `npm ci`), and the mocha configurations.
      globals: {
        require: "readonly",
        process: "readonly",
        console: "readonly",
        module: "writable",
        __dirname: "readonly",
      },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      // Pulumi's rules need type information too, which plain JavaScript files are linted without.
      "@pulumi/no-output-in-template-literal": "off",
      "@pulumi/no-output-instance-in-template-literal": "off",
      "@typescript-eslint/no-require-imports": "off",
    },
  },
);
