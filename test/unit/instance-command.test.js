// Which CPUs an app instance is pinned to, and the command line that pins it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instanceCommand, instanceCpus, pinning } from '../../sandbox/instance-command.js';

describe('instance pinning', () => {
  it('gives each instance its own cores side by side, wrapping around the machine', () => {
    assert.deepEqual(instanceCpus(0, 1, [0, 1]), [0]);
    assert.deepEqual(instanceCpus(1, 1, [0, 1]), [1]);
    assert.deepEqual(instanceCpus(2, 1, [0, 1]), [0]);
    assert.deepEqual(instanceCpus(1, 2, [0, 1, 2, 3]), [2, 3]);
    assert.deepEqual(instanceCpus(0, 4, [0, 1]), [0, 1], 'never more cores than the machine has');
  });

  it('wraps the runtime in taskset -c, or says why it cannot', () => {
    const pin = { taskset: '/usr/bin/taskset', cpus: [0, 1, 2, 3], note: null };
    const java = { java: '/usr/bin/java', jar: '/j/pg.jar', classesDir: '/t/classes' };
    const command = instanceCommand({ impl: 'java', index: 1, cores: 2, pin, java });
    assert.equal(command.command, '/usr/bin/taskset');
    assert.deepEqual(command.args.slice(0, 3), ['-c', '2,3', '/usr/bin/java']);
    assert.equal(command.args.at(-1), 'Main');
    assert.ok(command.args.includes('/t/classes:/j/pg.jar'));
    const node = instanceCommand({ impl: 'node', index: 0, cores: 1, pin: { ...pin, taskset: undefined }, java: {} });
    assert.equal(node.command, process.execPath);
    assert.equal(node.cpus, null);
    assert.throws(() => instanceCommand({ impl: 'java', index: 0, cores: 1, pin, java: {} }), /not compiled/);
    assert.match(pinning(1, { PATH: '/nonexistent' }).note ?? '', /^not applied: no taskset on PATH/);
  });
});
