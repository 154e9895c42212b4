// Comparing runs over their steady windows: the use case `paasmon report` and the demo share,
// below both commands. The comparison is ready for any renderer of report/render.
import { loadReportData } from '../../exporters/postgres/queries/report.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';

/** The comparison and its numerics (the scalability fit's), imported when first needed. */
export const comparisonModule = () => import('../../report/comparison.js');

/**
 * The comparison of these runs (each must exist).
 * @param {import('pg').Pool} pool @param {number[]} runIds
 * @param {{ trim?: number, scaleBy?: 'auto' | 'parallel' | 'instances', recompute?: boolean,
 *   log?: import('pino').Logger }} [options]
 *   trim: fraction of each run dropped at each end (0.1); scaleBy: the load of the USL fit (auto);
 *   recompute: compute every run's figures now, not read the stored ones (but a pruned run's)
 * @returns {Promise<import('../../report/comparison.js').Comparison>}
 */
export async function compareRuns(pool, runIds, options = {}) {
  const trim = options.trim ?? DEFAULT_TRIM;
  const data = await loadReportData(pool, runIds, { trim, recompute: options.recompute });
  if (data.stored.length) options.log?.debug({ runs: data.stored }, 'stored figures of runs read back');
  const { buildComparison } = await comparisonModule();
  return buildComparison(data, { trim, scaleBy: options.scaleBy });
}
