// Skipped router documents and lines: counted in the result, warned about once per ingest and
// reason, never for what is expected beside router requests (not_rtr, empty_rtr), whatever the source.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ingestLines, ingestWindow } from '../../collector/pipeline/ingest.js';
import { createLineSource } from '../../collector/sources/router-logs/file.js';

const writePage = async () => ({ records: [], count: 0 });
const pool = /** @type {any} */ ({});

/** Pages of a search window, each with skipped documents. @param {Array<Record<string, number>>} pages */
function fakeSource(pages) {
  return /** @type {any} */ ({
    async *readPages() {
      let t = 0;
      for (const skipped of pages) {
        t += 1;
        yield {
          kind: 'router_request',
          records: [],
          skipped: new Map(Object.entries(skipped)),
          examples: new Map(),
          position: `2026-01-01T00:00:0${t}.000Z`,
          read: Object.values(skipped).reduce((a, b) => a + b, 0),
        };
      }
    },
  });
}

describe('warnings about skipped router data', () => {
  it('search: counts not_rtr and empty_rtr without a warning, and warns once per other reason for the window', async () => {
    /** @type {Array<[string, string]>} */
    const warnings = [];
    const result = await ingestWindow(
      fakeSource([
        { not_rtr: 3, truncated: 1 },
        { not_rtr: 2, empty_rtr: 1 },
        { not_rtr: 4, truncated: 2 },
      ]),
      { from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T00:01:00.000Z' },
      { pool, writePage, warn: (reason, detail) => warnings.push([reason, detail]) },
    );
    assert.deepEqual(Object.fromEntries(result.skipped), { not_rtr: 9, truncated: 3, empty_rtr: 1 });
    assert.deepEqual(warnings, [['truncated', '3 router-log documents skipped: truncated']]);
  });

  it('file: the same rule for `cf logs` output', async () => {
    /** @type {Array<[string, string]>} */
    const warnings = [];
    const lines = [
      '2016-06-14T13:44:38.14-0700 [App/0]      OUT listening on 8080',
      '2025-09-18T05:32:10.74+0000 [APP/PROC/WEB/0] OUT hello',
      '2025-09-18T05:32:10.74+0000 [RTR/1] OUT ',
      'myapp.apps.example.com - [2025-09-18T05:32:10.7229',
    ];
    const source = createLineSource(Readable.from([lines.join('\n') + '\n']), {
      correlationHeader: 'X-Correlation-Id',
    });
    const result = await ingestLines(source, {
      pool,
      writePage,
      warn: (reason, detail) => warnings.push([reason, detail]),
    });
    assert.deepEqual(Object.fromEntries(result.skipped), { not_rtr: 2, empty_rtr: 1, truncated: 1 });
    assert.deepEqual(warnings, [['truncated', '1 lines skipped: truncated']]);
  });
});
