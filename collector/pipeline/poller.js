// Drives a source: one poll -> its records to every sink. The records of a failed poll that the
// source still returns (SourceError.records) are written too, marked incomplete.
import { SourceError } from '../../core/errors.js';
import { createJob } from './job.js';

/** @typedef {import('../../core/types.js').PaasmonRecord} PaasmonRecord */

/**
 * @template {PaasmonRecord} R
 * @param {object} options
 * @param {import('../../core/types.js').Source<R>} options.source
 * @param {import('../../core/types.js').Sink[]} options.sinks
 * @param {import('./job.js').SelfMetrics} options.metrics
 * @param {import('pino').Logger} options.log
 * @param {AbortSignal} [options.signal]
 */
export function createPoller({ source, sinks, metrics, log, signal }) {
  /** @type {R[]} */
  let last = [];
  const job = createJob({
    name: source.name,
    metrics,
    log,
    signal,
    work: async (ctx) => {
      let records;
      try {
        records = await source.poll(ctx);
      } catch (err) {
        last = err instanceof SourceError ? /** @type {R[]} */ (err.records) : [];
        for (const sink of sinks) sink.write(last, { complete: false });
        if (last.length)
          ctx.log.warn({ kept: last.length }, 'partial poll: samples fetched before the failure are kept');
        throw err;
      }
      last = records;
      for (const sink of sinks) sink.write(records, { complete: true });
      return { records: records.length };
    },
  });
  return {
    ...job,
    /** One poll; its records (also of a failed poll) with the outcome. @param {Date} [now] */
    async runOnce(now) {
      const outcome = await job.runOnce(now);
      return { records: last, complete: !outcome.error, error: outcome.error, durationMs: outcome.durationMs };
    },
  };
}
