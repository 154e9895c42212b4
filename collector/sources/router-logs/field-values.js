// Reading values out of untrusted search documents: a field by dotted path (nested objects or dotted
// keys), a header under the extra-fields object, and strings and numbers converted with care.

/**
 * A dotted path, split once: the whole path as a key, then each way to split it at a dot (a head
 * key and the rest); `read` is valueAt for this path alone.
 * @typedef {{ path: string, splits: Array<[head: string, rest: CompiledPath]>, read: (source: any) => unknown }}
 *   CompiledPath
 */

/** @type {Map<string, CompiledPath>} the configured paths, split once (bench/ingest.bench.js profile) */
const compiledPaths = new Map();
/** Paths come from the configuration and a few extra-field names; a bound all the same. */
const MOST_COMPILED_PATHS = 10_000;

/** @param {string} path @returns {CompiledPath} */
function compilePath(path) {
  let compiled = compiledPaths.get(path);
  if (compiled) return compiled;
  /** @type {CompiledPath['splits']} */
  const splits = [];
  // A dot at the end splits off nothing: no field is named ''.
  for (let i = path.indexOf('.'); i >= 0 && i < path.length - 1; i = path.indexOf('.', i + 1))
    splits.push([path.slice(0, i), compilePath(path.slice(i + 1))]);
  compiled = { path, splits, read: readerOf(path, splits) };
  if (compiledPaths.size >= MOST_COMPILED_PATHS) compiledPaths.clear();
  compiledPaths.set(path, compiled);
  return compiled;
}

/**
 * The value at a compiled path. One read per key tried: parsed JSON holds no `undefined`, so a
 * key read as undefined is a key that is not there.
 * @param {any} source @param {CompiledPath} compiled @returns {unknown}
 */
export const valueAt = (source, compiled) => compiled.read(source);

/**
 * A path's reader: the whole path as a key, then every split point ({"rtr": {"app.id": ...}} and
 * {"rtr": {"app": {"id": ...}}} both occur), each head read and its rest read by the rest's reader.
 * A function of its own per path, its keys written in it (as JSON string literals, which are
 * JavaScript's too): each read then sees documents of one or two shapes and V8 reads the key where
 * the shape keeps it, where one function for every path reads each key by a lookup per read
 * (bench/README.md, ingest).
 * @param {string} path @param {CompiledPath['splits']} splits @returns {CompiledPath['read']}
 */
function readerOf(path, splits) {
  const heads = splits
    .map(
      ([head], k) => `inner = source[${JSON.stringify(head)}];
      if (inner !== undefined) {
        value = rests[${k}](inner);
        if (value !== undefined) return value;
      }`,
    )
    .join('\n');
  const body = `return function read(source) {
    if (source === null || typeof source !== 'object') return undefined;
    let value = source[${JSON.stringify(path)}];
    if (value !== undefined) return value;
    let inner;
    ${heads}
    return undefined;
  };`;
  return new Function('rests', body)(splits.map(([, rest]) => rest.read));
}

/**
 * Every field of a mapping's field names, compiled once (fieldOf compiles by a lookup per call).
 * @typedef {{ [K in keyof import('./document-fields.js').FieldNames]: CompiledPath | undefined }} CompiledFields
 * @type {WeakMap<object, CompiledFields>}
 */
const compiledFieldsByNames = new WeakMap();

/** @param {import('./document-fields.js').FieldNames} fields @returns {CompiledFields} */
export function compiledFields(fields) {
  let compiled = compiledFieldsByNames.get(fields);
  if (!compiled) {
    const entries = Object.entries(fields).map(([key, path]) => [key, path ? compilePath(path) : undefined]);
    compiledFieldsByNames.set(fields, (compiled = /** @type {CompiledFields} */ (Object.fromEntries(entries))));
  }
  return compiled;
}

/** @param {any} source @param {CompiledPath | undefined} compiled @returns {unknown} */
export const valueOf = (source, compiled) => (compiled ? compiled.read(source) : undefined);

/**
 * A field by dotted path, whether the document nests objects or uses dotted keys.
 * @param {any} source @param {string} path @returns {unknown}
 */
export function fieldOf(source, path) {
  if (!path) return undefined;
  return valueAt(source, compilePath(path));
}

/**
 * `<extra>.<name>` by extra, by name: no string built per lookup. Bounded by the header names the
 * mapping asks for (a fixed list and the configured correlation header).
 * @type {Map<string, Map<string, CompiledPath>>}
 */
const extraPaths = new Map();

/** The path of the field `name` under `extra` (e.g. rtr.extra). @param {string} extra @param {string} name */
export function extraPath(extra, name) {
  let byName = extraPaths.get(extra);
  if (!byName) extraPaths.set(extra, (byName = new Map()));
  let compiled = byName.get(name);
  if (!compiled) byName.set(name, (compiled = compilePath(`${extra}.${name}`)));
  return compiled;
}

/** The field `name` under `extra` (e.g. rtr.extra). @param {any} source @param {string} extra @param {string} name */
export const extraField = (source, extra, name) => valueAt(source, extraPath(extra, name));

// Documents are untrusted: only strings and numbers are converted (String() or Number() of an
// object such as {"toString": 0} throws; fast-check found it).

/** @param {unknown} value @returns {string | null} */
export const text = (value) => {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' && value !== '' && value !== '-' ? value : null;
};

/** @param {unknown} value @returns {number | null | undefined} null when absent, undefined when malformed */
export function number(value) {
  if (value === undefined || value === null || value === '' || value === '-') return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
