/** The benchmark's count of the lines users run (bench/reachable.ts) counts lines as `wc -l` does. */
import * as assert from "node:assert/strict";
import { countLines } from "../bench/reachable";

describe("the benchmark's line count", () => {
  it("counts each newline, and a last line without one", () => {
    assert.equal(countLines(""), 0);
    assert.equal(countLines("\n"), 1);
    assert.equal(countLines("a"), 1);
    assert.equal(countLines("a\nb\n"), 2);
    assert.equal(countLines("a\n\nb"), 3);
    assert.equal(countLines("a\r\nb\r\n"), 2);
  });
});
