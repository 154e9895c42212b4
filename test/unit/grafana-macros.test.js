// The test support's expansion of Grafana's PostgreSQL macros and variables, against the outputs
// macros.go and the SQL datasources produce (so the dashboard SQL tests run what Grafana would).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPromql, expandSql, rfc3339Nano } from '../support/grafana.js';

const from = new Date('2026-11-22T10:00:00.000Z');
const to = new Date('2026-11-22T10:05:30.250Z');
/** @param {string} sql @param {Record<string, { values: string[], multi: boolean }>} [variables] */
const expand = (sql, variables = {}) => expandSql(sql, { from, to, interval: '5s', variables });

describe('Grafana macro expansion (test support)', () => {
  it('formats times as Go RFC3339Nano in UTC', () => {
    assert.equal(rfc3339Nano(from), '2026-11-22T10:00:00Z');
    assert.equal(rfc3339Nano(to), '2026-11-22T10:05:30.25Z');
  });

  it('expands the time macros as macros.go does', () => {
    assert.equal(
      expand('WHERE $__timeFilter(ts)'),
      "WHERE ts BETWEEN '2026-11-22T10:00:00Z' AND '2026-11-22T10:05:30.25Z'",
    );
    assert.equal(expand('$__timeFrom() $__timeTo()'), "'2026-11-22T10:00:00Z' '2026-11-22T10:05:30.25Z'");
    assert.equal(expand("SELECT $__timeGroup(ts, '5m') AS t"), 'SELECT floor(extract(epoch from ts)/300)*300 AS t');
    assert.equal(
      expand("SELECT $__timeGroup(ts,'5m'), v"),
      'SELECT floor(extract(epoch from ts)/300)*300 AS "time", v',
      'a comma after it adds the alias',
    );
    assert.equal(
      expand('SELECT $__timeGroupAlias(ts, $__interval)'),
      'SELECT floor(extract(epoch from ts)/5)*5 AS "time"',
    );
    assert.equal(expand('$__unixEpochFilter(epoch_s)'), 'epoch_s >= 1795341600 AND epoch_s <= 1795341930');
    assert.equal(expand('$__interval_ms $__unixEpochFrom() $__unixEpochTo()'), '5000 1795341600 1795341930');
    assert.throws(() => expand('$__timeEpochNano(ts)'), /not expanded/);
  });

  it('quotes multi-value variables and leaves a single value as it is', () => {
    assert.equal(
      expand('id IN ($run) AND app = $app', {
        run: { values: ['3', '7'], multi: true },
        app: { values: ['shop'], multi: false },
      }),
      "id IN ('3','7') AND app = shop",
    );
    assert.equal(expand('app IN (${app})', { app: { values: ["o'neil"], multi: true } }), "app IN ('o''neil')");
  });

  it('fills Prometheus variables as regex alternatives with regex characters escaped', () => {
    const context = { rateInterval: '1m', range: '3600s', variables: { app: ['a.b'], run: ['1', '2'] } };
    assert.equal(
      expandPromql('x{a=~"$app",r=~"${run}"}[$__rate_interval] $__range', context),
      String.raw`x{a=~"a\\.b",r=~"(1|2)"}[1m] 3600s`,
    );
  });
});
