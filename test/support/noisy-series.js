// Seeded noisy series for the change-point tests: the same values at every run.

/** Normal noise, mean 0 and standard deviation 1, from mulberry32 through Box-Muller. */
export function noise(seed = 1) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/**
 * n values: the level at i plus noise of standard deviation sd.
 * @param {number} n @param {(i: number) => number} level @param {number} sd @param {number} [seed]
 */
export function series(n, level, sd, seed = 1) {
  const next = noise(seed);
  return Array.from({ length: n }, (_, i) => level(i) + sd * next());
}
