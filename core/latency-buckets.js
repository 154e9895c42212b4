// The latency histogram's buckets, shared by the Prometheus sink and the load generator's statistics.

/** Latency buckets in seconds, 1 ms to 30 s, for the router and the load generator alike (so they compare). */
export const LATENCY_BUCKETS = Object.freeze([
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
]);
