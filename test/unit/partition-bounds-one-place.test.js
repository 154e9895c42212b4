// Partition bounds are parsed in one place (sql/views/00_partition_bounds.sql): every other view
// file and the report's query files go through paasmon_partition_bounds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { VIEWS_DIR, viewFiles } from '../../exporters/postgres/schema/migrate.js';
import { QUERIES_DIR } from '../../exporters/postgres/queries/report.js';

test('only 00_partition_bounds.sql reads relpartbound', () => {
  const files = [
    ...viewFiles().map((f) => `${VIEWS_DIR}${f}`),
    ...fs
      .readdirSync(QUERIES_DIR)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => `${QUERIES_DIR}${f}`),
  ];
  const readers = files.filter((file) => fs.readFileSync(file, 'utf8').includes('relpartbound'));
  assert.deepEqual(
    readers.map((file) => file.slice(file.lastIndexOf('/') + 1)),
    ['00_partition_bounds.sql'],
  );
});
