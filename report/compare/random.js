// Seeded pseudo-random numbers for the bootstraps: the same seed gives the same intervals, so a
// verdict can be reproduced (the seed is printed with it).
import { randomInt } from 'node:crypto';

/** A fresh seed when none is given. */
export const newSeed = () => randomInt(1, 2 ** 31 - 1);

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): uniform numbers in [0, 1) from a 32-bit seed.
 * @param {number} seed @returns {() => number}
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
