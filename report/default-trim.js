// The report's default steady window, apart from the statistics: `paasmon prune` stores figures
// over it without loading what the comparison needs.

/** Fraction of each run dropped at each end: ramp-up and ramp-down are not the steady state. */
export const DEFAULT_TRIM = 0.1;
