// What Cloud Foundry runs: each app's command is node itself (npm as a parent process would cost a second
// Node.js heap in the same memory limit), and package.json's engines names the Node.js majors the
// buildpack may pick, no open range a restage could move to a new major.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import YAML from 'yaml';

const read = (/** @type {string} */ file) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const manifest = YAML.parse(read('manifest.yml'));
const pkg = JSON.parse(read('package.json'));
/** @param {string} name */
const app = (name) => manifest.applications.find((/** @type {any} */ a) => a.name === name);

describe('manifest.yml and package.json', () => {
  it('runs the collector and the workers with node and their V8 flags, not through npm', () => {
    const command = /^node( --[a-z-]+=\d+)+ collector\/cli\.js (\w+)$/;
    assert.equal(command.exec(app('paasmon-collector').command)?.[2], 'collect', app('paasmon-collector').command);
    assert.equal(command.exec(app('paasmon-loadgen').command)?.[2], 'worker', app('paasmon-loadgen').command);
    assert.equal(pkg.scripts.start, app('paasmon-collector').command, 'npm start locally runs what the manifest runs');
  });

  it('pins engines.node to whole majors from 20.11, the same range the docs give', () => {
    const range = pkg.engines.node;
    assert.doesNotMatch(range, />|\*|x/, 'an open range lets the buildpack take any newer major');
    const majors = range.split('||').map((part) => {
      const match = /^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part);
      assert.ok(match, `"${part}" is a caret range of one major`);
      return Number(match[1]);
    });
    assert.equal(majors[0], 20);
    assert.ok(/^\^20\.(1[1-9]|[2-9]\d)\./.test(range), 'Node 20 from 20.11');
    assert.ok(majors.includes(Number(process.versions.node.split('.')[0])), 'the tests run on a named major');
    assert.ok(read('docs/cloud-foundry.md').includes(`\`${range}\``), 'docs/cloud-foundry.md gives the range');
  });
});
