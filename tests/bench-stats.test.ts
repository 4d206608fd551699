/**
 * The comparison `deno task bench` judges the distinct-id rows by
 * (tests/bench/stats.ts): a mean difference, its standard error and the
 * one-sided 95% bound from Student's t.
 */
import assert from "node:assert/strict";
import { pairedDifference, pct } from "./bench/stats.ts";

Deno.test("pairedDifference: mean, standard error and the 95% bound", () => {
  // Differences +2%, −2%, +4%, −4%: mean 0, sample variance 0.004/3,
  // standard error sqrt(0.004/12), t for 3 degrees of freedom 2.353.
  const d = pairedDifference([1.02, 0.98, 1.04, 0.96]);
  assert.equal(d.n, 4);
  assert.ok(Math.abs(d.mean) < 1e-12);
  assert.ok(Math.abs(d.se - Math.sqrt(0.004 / 12)) < 1e-12);
  assert.ok(Math.abs(d.highest - 2.353 * Math.sqrt(0.004 / 12)) < 1e-9);
});

Deno.test("pairedDifference: blocks all below are shown below", () => {
  // The state before issue 33's changes: about 12% below in every block.
  const below = pairedDifference([0.87, 0.88, 0.89]);
  assert.ok(below.highest < 0, `bound ${below.highest}`);
  // At parity, blocks either side: not shown below.
  const parity = pairedDifference([0.96, 1.09, 0.97]);
  assert.ok(parity.highest >= 0, `bound ${parity.highest}`);
});

Deno.test("pairedDifference: one block says nothing", () => {
  assert.equal(pairedDifference([0.5]).highest, Number.POSITIVE_INFINITY);
});

Deno.test("pct: signed percentages", () => {
  assert.equal(pct(0.0934), "+9.3%");
  assert.equal(pct(-0.033), "−3.3%");
});
