// Prints, for $GITHUB_OUTPUT, what the workflows need of the stacks (run after `npm ci`, from the
// repository's root):
//   stacks=["dev","prod",...]       every stack with a Pulumi.<stack>.yaml, sorted, so a new stack file is
//                                   previewed, deployed and drift-checked without editing a workflow;
//                                   with --except NAME..., those stacks are left out of this list only
//   runners={"dev":["ubuntu-latest"],"prod":["self-hosted","eks-prod"],...}
//                                   each stack's `runs-on` labels for `pulumi up` and the drift check, from
//                                   its `eks-calico:deploy` settings (docs/pull-requests.md, "Runners")
//   unreachable=["prod",...]        the stacks whose Kubernetes API GitHub-hosted runners cannot reach
//                                   (pull-request previews run there and say so)
// Example stacks (Pulumi.<name>.example.yaml, templates for a stack of one's own) are never listed. The
// settings are read with the program's own config schema (offline/stack-runners.ts), so their defaults and
// rules have one home.
require("ts-node").register({ transpileOnly: true });
const { stackRunners } = require("../../offline/stack-runners");

const args = process.argv.slice(2);
const except = new Set(args[0] === "--except" ? args.slice(1) : []);
const runners = stackRunners(process.cwd());
const stacks = runners.map((r) => r.stack).filter((stack) => !except.has(stack));
console.log(`stacks=${JSON.stringify(stacks)}`);
console.log(`runners=${JSON.stringify(Object.fromEntries(runners.map((r) => [r.stack, r.labels])))}`);
console.log(
  `unreachable=${JSON.stringify(runners.filter((r) => !r.reachableFromGitHub).map((r) => r.stack))}`,
);
