// CPU and memory from /proc, checked against Node's own accounting of the same process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { createProcUsage, parseProcStat } from '../../sandbox/proc-usage.js';

describe('proc usage', () => {
  it('counts /proc/<pid>/stat fields from the last ")" (a command name may hold spaces and parentheses)', () => {
    const fields = [
      'S',
      ...Array.from({ length: 10 }, (_, i) => String(i + 4)),
      '700',
      '300',
      ...Array.from({ length: 6 }, (_, i) => String(i + 16)),
      '123456',
      '999',
      '2500',
      '0',
    ];
    const stat = parseProcStat(`4242 (node (worker) x) ${fields.join(' ')}`);
    assert.deepEqual(stat, { cpuTicks: 1000, startTicks: 123456, rssPages: 2500 });
  });

  it('reports the CPU this process burnt between two readings, as a fraction of one core, and its RSS', () => {
    const usage = createProcUsage(process.pid);
    const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
    const uptime = () => Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    usage();
    const cpuBefore = process.cpuUsage();
    const wallBefore = uptime();
    for (const end = Date.now() + 400; Date.now() < end;) Math.sqrt(Math.random());
    const cpuSeconds = (process.cpuUsage(cpuBefore).user + process.cpuUsage(cpuBefore).system) / 1e6;
    const reading = usage();
    const wall = uptime() - wallBefore;
    assert.ok(reading, 'a live process has a reading');
    // Both clocks count the same work; /proc only in whole ticks, and readings happen a little apart.
    const slackSeconds = 3 / ticksPerSecond;
    assert.ok(
      Math.abs(reading.cpu * wall - cpuSeconds) <= slackSeconds + 0.05 * cpuSeconds,
      `cpu ${reading.cpu} x ${wall} s vs process.cpuUsage ${cpuSeconds} s`,
    );
    assert.ok(reading.cpu > 0, `a busy loop shows (${reading.cpu})`);
    const rss = process.memoryUsage().rss;
    assert.ok(Math.abs(reading.mem - rss) < 0.1 * rss, `rss ${reading.mem} vs process.memoryUsage ${rss}`);
    assert.ok(
      reading.uptime >= 0 && reading.uptime <= process.uptime() + 1,
      `uptime ${reading.uptime} vs ${process.uptime()}`,
    );
  });

  it('has no reading for a process that is gone', () => {
    assert.equal(createProcUsage(2 ** 22 + 12345)(), undefined);
  });
});
