// One router request record with every column set, for the COPY encoder's tests; `fields` replaces any.

/**
 * @param {Record<string, unknown>} [fields]
 * @returns {import('../../core/types.js').RouterRequest}
 */
export const routerRequestRecord = (fields = {}) =>
  /** @type {any} */ ({
    kind: 'router_request',
    receivedAt: '2026-11-22T10:00:00.000001Z',
    appGuid: '1ec90566-397f-4238-a452-ad4d246f73e4',
    appName: 'shop',
    appIndex: 2,
    instanceId: 'inst-2',
    method: 'GET',
    path: '/',
    status: 200,
    responseTimeMs: 25.501,
    gorouterTimeMs: 0.085,
    responseTimeResolutionMs: null,
    bytesReceived: 0,
    bytesSent: 1_099_511_627_770,
    vcapRequestId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
    correlationId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
    routerError: null,
    traceId: 'b8fb3d83ae6a43ca5b91591aadde8c06',
    ...fields,
  });
