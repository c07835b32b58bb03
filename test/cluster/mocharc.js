// mocha's configuration for `npm run test:cluster`. Each file starts its own local cluster on free ports
// (local-cluster/control-plane.ts), so three files run at once, in three worker processes: a file mostly
// waits on rollouts, kwok's stages and the provider's awaits, and on 2 cores three at once finished the
// suite in 35 minutes with `npm test` running beside it (two at once: 40 minutes alone). Files start
// longest first, so the workers finish together; a file not named below starts after these, in name order.
const fs = require("node:fs");
const path = require("node:path");

// Measured with `npm run test:cluster` (three at once, beside `npm test`), longest first (seconds of its tests).
const LONGEST_FIRST = [
  "calico", // 920
  "takeover", // 735
  "interrupted-up", // 650
  "felix-cleanup", // 495
  "redeploy", // 455
  "generated", // 430
  "rbac", // 350
  "readiness", // 310
  "namespace-move", // 305
  "line-change", // 285
  "probe", // 270
  "crd-schemas", // 235
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
  jobs: 3,
};
