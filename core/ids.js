// Identifier forms every stage shares: Cloud Foundry GUIDs, 128-bit request ids, HTTP status classes.

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** @param {string} text */
export function isGuid(text) {
  return GUID.test(text);
}

/**
 * A list of apps as CF_APPS gives it, split into GUIDs (lower-cased, as Cloud Foundry and every
 * stored record write them) and names (everything else, as given).
 * @param {readonly string[]} apps
 */
export function splitApps(apps) {
  return {
    guids: apps.filter((a) => isGuid(a)).map((g) => g.toLowerCase()),
    names: apps.filter((a) => !isGuid(a)),
  };
}

/**
 * Lower-case UUID form of 32 hex digits (a B3 or W3C trace id): 8-4-4-4-12.
 * @param {string} hex 32 lower-case hex digits
 */
export function uuidFromHex32(hex) {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `2xx`, `5xx`, ...; `none` when no response arrived (status 0, null or absent).
 * @param {number | null | undefined} status
 */
export function statusClass(status) {
  return status ? `${Math.floor(status / 100)}xx` : 'none';
}

const HEX32 = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;

/**
 * Lower-case UUID form: `b8fb3d83ae6a43ca5b91591aadde8c06` and `B8FB3D83-AE6A-...` both become
 * `b8fb3d83-ae6a-43ca-5b91-591aadde8c06`; a traceparent yields its trace id; any other value is
 * kept, trimmed and lower-cased (it can still match an id sent in the same form).
 * @param {string | undefined | null} value
 */
export function normalizeId(value) {
  if (value === undefined || value === null) return null;
  // Most ids come in lower-case UUID form already: one test, no trimmed or lower-cased copy.
  if (value.length === 36 && UUID.test(value)) return value;
  const v = value.trim().toLowerCase();
  if (v === '' || v === '-') return null;
  if (UUID.test(v)) return v;
  const hex = HEX32.test(v) ? v : TRACEPARENT.exec(v)?.[1];
  if (hex) return uuidFromHex32(hex);
  return v;
}
