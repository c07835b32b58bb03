/** The README's quick start: the commands a newcomer runs first, and its diagram. */
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { PROJECT_ROOT } from "../offline/engine";

describe("README", () => {
  it("gives the two quick-start commands and the real deployment path", () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, "README.md"), "utf8");
    for (const command of [
      "npm ci && npm start",
      "npm ci && npm test",
      "npm run test:cluster",
      "pulumi login",
      "pulumi stack select dev",
      "pulumi up",
    ]) {
      assert.ok(readme.includes(command), `README lacks \`${command}\``);
    }
    assert.match(readme, /```mermaid\n/);
  });
});
