// mocha's configuration for `npm run test:cluster`. Each file starts its own local cluster on free ports
// (local-cluster/control-plane.ts), so two files run at once, in two worker processes: on 2 cores, two at
// once still left the CPU idle about half the time (vmstat), as a file mostly waits on rollouts and kwok's
// stages. Files start longest first, so both workers finish together; a file not named below starts after
// these, in name order.
const fs = require("node:fs");
const path = require("node:path");

// Measured with `npm run test:cluster` on an idle 2-core machine, longest first (seconds of its tests).
const LONGEST_FIRST = [
  "calico", // 950
  "takeover", // 510
  "interrupted-up", // 475
  "felix-cleanup", // 380
  "generated", // 325
  "redeploy", // 310
  "namespace-move", // 220
  "line-change", // 215
  "probe", // 210
];

const files = fs
  .readdirSync(__dirname)
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => file.slice(0, -".test.ts".length))
  .sort();
const rank = (name) => (LONGEST_FIRST.includes(name) ? LONGEST_FIRST.indexOf(name) : LONGEST_FIRST.length);
const ordered = [...files].sort((a, b) => rank(a) - rank(b));

module.exports = {
  require: ["ts-node/register/transpile-only"],
  extension: ["ts"],
  spec: ordered.map((name) => path.join("test", "cluster", `${name}.test.ts`)),
  timeout: 600000,
  reporter: "spec",
  parallel: true,
  jobs: 2,
};
