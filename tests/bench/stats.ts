/**
 * The statistics of `deno task bench` (tests/bench/measures.ts): how two
 * rows measured in the same turns compare, and how sure that is.
 */

/** `x` (a fraction) as a signed percentage. */
export const pct = (x: number) =>
  `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`;

/**
 * One-sided 95% points of Student's t for 1 to 30 degrees of freedom (then
 * the normal distribution's 1.645).
 */
const T95 = [
  6.314,
  2.92,
  2.353,
  2.132,
  2.015,
  1.943,
  1.895,
  1.86,
  1.833,
  1.812,
  1.796,
  1.782,
  1.771,
  1.761,
  1.753,
  1.746,
  1.74,
  1.734,
  1.729,
  1.725,
  1.721,
  1.717,
  1.714,
  1.711,
  1.708,
  1.706,
  1.703,
  1.701,
  1.699,
  1.697,
];

/**
 * How far a second row is from a first, over `ratios` (second / first, one
 * per turn or block), on the log scale, so that a dip of either row weighs
 * alike (a mean of raw ratios lifts the second row more for a dip of the
 * first than it lowers it for a dip of its own): the geometric mean ratio's
 * difference from 1 (`mean`), its standard error in log units (`se`, about a
 * fraction), the highest difference the ratios allow (one-sided 95%, Student's
 * t: below zero, they show the second row below the first beyond how much
 * they vary), and the smallest cost they could show (`detectable`: a mean
 * difference below it is shown, one above it is not).
 */
export function pairedDifference(ratios: number[]) {
  const n = ratios.length;
  const logs = ratios.map((r) => Math.log(r));
  const mean = logs.reduce((x, y) => x + y, 0) / n;
  const variance = n > 1
    ? logs.reduce((x, d) => x + (d - mean) ** 2, 0) / (n - 1)
    : Number.POSITIVE_INFINITY;
  const se = Math.sqrt(variance / n);
  const t = T95[n - 2] ?? 1.645;
  return {
    n,
    mean: Math.exp(mean) - 1,
    se,
    highest: Math.exp(mean + t * se) - 1,
    detectable: Math.exp(-t * se) - 1,
  };
}

/** The geometric mean of `ratios`: a block's ratio from its turns'. */
export function geometricMean(ratios: number[]): number {
  return Math.exp(
    ratios.reduce((x, r) => x + Math.log(r), 0) / ratios.length,
  );
}
