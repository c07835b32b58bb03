// Prints `stacks=["dev","prod",...]` for $GITHUB_OUTPUT: every stack with a Pulumi.<stack>.yaml in the
// working directory, sorted, so a new stack file is previewed, deployed and drift-checked without
// editing a workflow. With --except NAME..., those stacks are left out. Example stacks
// (Pulumi.<name>.example.yaml, templates for a stack of one's own) are never previewed or deployed.
const fs = require("node:fs");

const args = process.argv.slice(2);
const except = new Set(args[0] === "--except" ? args.slice(1) : []);
const stacks = fs
  .readdirSync(".")
  .map((file) => /^Pulumi\.(.+)\.yaml$/.exec(file)?.[1])
  .filter((stack) => stack !== undefined && !stack.endsWith(".example") && !except.has(stack))
  .sort();
console.log(`stacks=${JSON.stringify(stacks)}`);
