// Whether two sides measure the same thing: a regression gate that compares 2 instances with 4,
// or 16 requests in flight with 32, only finds the setting that changed. Each side's runs must
// agree among themselves and with the other side's on the app, the instances, the load (parallel
// requests or rate), the cores per instance, and on the endpoint mix within a tolerance.

/** Total variation distance between the two sides' shares of requests per router path. */
export const DEFAULT_MIX_TOLERANCE = 0.1;

const SETTINGS = /** @type {const} */ ([
  ['app_name', 'app'],
  ['instances', 'instances'],
  ['parallel', 'parallel requests'],
  ['rate', 'rate'],
  ['cores_per_instance', 'cores per instance'],
]);

/** @param {Record<string, any>} run @param {string} key */
const settingOf = (run, key) => (key === 'rate' ? (run.meta?.rate ?? null) : (run[key] ?? null));

/**
 * @param {Array<Record<string, any>>} baseline runs (test_runs rows) @param {Array<Record<string, any>>} candidate
 * @param {{ baseline: Map<string, number>, candidate: Map<string, number> }} mix requests per router path
 * @param {number} [tolerance]
 * @returns {string[]} the reasons they are not comparable (none: comparable)
 */
export function comparability(baseline, candidate, mix, tolerance = DEFAULT_MIX_TOLERANCE) {
  const reasons = [];
  for (const [key, name] of SETTINGS) {
    const values = (/** @type {Array<Record<string, any>>} */ runs) => [
      ...new Set(runs.map((r) => JSON.stringify(settingOf(r, key)))),
    ];
    const b = values(baseline);
    const c = values(candidate);
    const show = (/** @type {string[]} */ v) => v.map((x) => (x === 'null' ? 'unset' : JSON.parse(x))).join(' and ');
    if (b.length > 1) reasons.push(`the baseline's runs differ in ${name} (${show(b)})`);
    if (c.length > 1) reasons.push(`the candidate's runs differ in ${name} (${show(c)})`);
    if (b.length === 1 && c.length === 1 && b[0] !== c[0])
      reasons.push(`${name} differ: baseline ${show(b)}, candidate ${show(c)}`);
  }
  const distance = mixDistance(mix.baseline, mix.candidate);
  if (distance !== null && distance > tolerance) {
    reasons.push(
      `the endpoint mix differs by ${(100 * distance).toFixed(1)} % of requests ` +
        `(tolerance ${(100 * tolerance).toFixed(1)} %; --mix-tolerance)`,
    );
  }
  return reasons;
}

/**
 * Half the sum of the absolute differences of the shares; null when a side has no router records.
 * @param {Map<string, number>} a @param {Map<string, number>} b
 */
export function mixDistance(a, b) {
  const total = (/** @type {Map<string, number>} */ m) => [...m.values()].reduce((s, v) => s + v, 0);
  const ta = total(a);
  const tb = total(b);
  if (!(ta > 0 && tb > 0)) return null;
  let sum = 0;
  for (const path of new Set([...a.keys(), ...b.keys()]))
    sum += Math.abs((a.get(path) ?? 0) / ta - (b.get(path) ?? 0) / tb);
  return sum / 2;
}
