// One fresh 128-bit id per request, sent in every form the router side can pick up (ARCHITECTURE.md,
// "Correlation ids"): X-Correlation-Id (UUID), W3C traceparent, and B3 trace + span ids.
import crypto from 'node:crypto';

/**
 * @param {string} correlationHeader e.g. X-Correlation-Id
 * @returns {{ id: string, headers: Record<string, string> }} id in lower-case UUID form
 */
export function requestIdHeaders(correlationHeader) {
  const bytes = crypto.randomBytes(24);
  const trace = bytes.subarray(0, 16).toString('hex');
  const span = bytes.subarray(16, 24).toString('hex');
  const id = `${trace.slice(0, 8)}-${trace.slice(8, 12)}-${trace.slice(12, 16)}-${trace.slice(16, 20)}-${trace.slice(20)}`;
  return {
    id,
    headers: {
      [correlationHeader.toLowerCase()]: id,
      traceparent: `00-${trace}-${span}-01`,
      'x-b3-traceid': trace,
      'x-b3-spanid': span,
    },
  };
}
