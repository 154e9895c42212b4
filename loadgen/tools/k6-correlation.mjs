// paasmon: one fresh correlation id per request, sent in X-Correlation-Id and kept as the point's
// `correlation_id` tag, so `paasmon import` joins each request of `k6 run --out json=results.json`
// with the router's record. (A tag per request makes a time series per request in k6's own
// outputs; k6's tracing instrumentation, which sends a traceparent and writes its trace_id into the
// point's metadata, avoids that and is read as well.) The params are the fragment to copy.
import http from 'k6/http';
import { uuidv4 } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

export const options = { vus: 8, duration: '30s' };

export default function () {
  const id = uuidv4();
  // eslint-disable-next-line no-undef
  http.get(__ENV.TARGET_URL, { headers: { 'X-Correlation-Id': id }, tags: { correlation_id: id } });
}
