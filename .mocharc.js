// mocha's configuration for the offline suite. A .js file rather than .mocharc.json so the timeout can follow
// EKS_CALICO_TEST_TIMEOUT_MS (docs/testing.md). No `spec` here: mocha adds a config's spec to the files named
// on its command line, so `npx mocha test/x.test.ts` would run every test. `npm run test:unit` names the
// files instead.
const DEFAULT_TIMEOUT_MS = 300000;

function timeout(value) {
  if (value === undefined || value === "") return DEFAULT_TIMEOUT_MS;
  if (!/^\d+$/.test(value)) {
    throw new Error(
      `EKS_CALICO_TEST_TIMEOUT_MS must be milliseconds as a whole number (0: none), not "${value}"`,
    );
  }
  return Number(value);
}

module.exports = {
  require: ["ts-node/register/transpile-only"],
  extension: ["ts"],
  timeout: timeout(process.env.EKS_CALICO_TEST_TIMEOUT_MS),
  reporter: "spec",
  ignore: ["test/cluster/**"],
  // Two worker processes: mocha's default is one fewer than the cores, one on a 2-core machine.
  parallel: true,
  jobs: 2,
};
