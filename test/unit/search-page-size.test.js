import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextPageSize, PAGE_BYTES } from '../../collector/sources/router-logs/search.js';

describe('nextPageSize', () => {
  it('asks for as many documents as fill PAGE_BYTES at the last page’s size per document', () => {
    // 1,000 documents of 1,024 characters: 1,536 of them make 1.5 MiB.
    assert.equal(PAGE_BYTES, 1.5 * 1024 * 1024);
    assert.equal(nextPageSize(1000 * 1024, 1000, 1000), 1536);
    // Documents four times as large: a quarter as many.
    assert.equal(nextPageSize(1000 * 4096, 1000, 1000), 384);
    assert.equal(nextPageSize(3 * 1024 * 1024, 2000, 1000), 1000);
  });

  it('keeps the last size when the length of the answer is not known', () => {
    assert.equal(nextPageSize(0, 1000, 1234), 1234);
    assert.equal(nextPageSize(Number.NaN, 1000, 1234), 1234);
    assert.equal(nextPageSize(5000, 0, 1234), 1234);
  });

  it('stays between one document and 10,000', () => {
    assert.equal(nextPageSize(1000 * 10, 1000, 1000), 10_000);
    assert.equal(nextPageSize(4 * PAGE_BYTES, 1, 1000), 1);
  });
});
