// The benches' timing of a piece of work: its median over several calls, after one warm-up.

/**
 * Median wall time of `repeat` calls after one warm-up, in ms; `prepare`, untimed, before each call.
 * @param {() => Promise<unknown>} work @param {number} repeat @param {() => Promise<unknown>} [prepare]
 */
export async function medianMs(work, repeat, prepare) {
  await prepare?.();
  await work();
  const times = [];
  for (let i = 0; i < repeat; i++) {
    await prepare?.();
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(repeat / 2)];
}
