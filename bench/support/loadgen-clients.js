// The clients the load-generator bench measures paasmon against, each in its own process reporting its
// own CPU time (cpu-at-exit.js): autocannon and undici alone; and the target they all send to.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { CLI } from '../../test/support/cli.js';
import { watchOver } from '../../test/support/reaper.js';

export const CPU_AT_EXIT = `--import=${new URL('./cpu-at-exit.js', import.meta.url)}`;
const AUTOCANNON = fileURLToPath(import.meta.resolve('autocannon/autocannon.js'));
const UNDICI_LOOP = fileURLToPath(new URL('./undici-loop.js', import.meta.url));
// The V8 flags paasmon runs with (its shebang), for undici alone too: heap settings change CPU per request.
const CLI_V8_FLAGS = (/node (.*)$/.exec(fs.readFileSync(CLI, 'utf8').split('\n')[0])?.[1] ?? '')
  .split(' ')
  .filter(Boolean);
// What paasmon sends besides the request itself, for autocannon too (fixed values).
const ID_HEADERS = [
  'x-correlation-id=0af76519-16cd-43dd-8448-eb211c80319c',
  'traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  'x-b3-traceid=0af7651916cd43dd8448eb211c80319c',
  'x-b3-spanid=b7ad6b7169203331',
];
/** @param {string} text @param {RegExp} re */
export const numberIn = (text, re) => Number(re.exec(text)?.[1]);
/** @param {string} stderr */
export const cpuOf = (stderr) => numberIn(stderr, /cpu-seconds (\S+)/);

/**
 * The target in its own process, so it shares an event loop with neither client. With a delay,
 * every answer waits that long, and GET /spread?afterMs=T gives the target's own p50 and p99.9
 * (ms) of the requests that came T ms or more after its first.
 * @param {number} delayMs
 */
export async function startTarget(delayMs) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `
  const http = require('node:http');
  const times = [];
  const delay = ${delayMs};
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/spread')) {
      const afterMs = Number(new URL(req.url, 'http://x').searchParams.get('afterMs') ?? 0);
      const kept = times.filter(([start]) => start - times[0][0] >= afterMs).map(([, took]) => took);
      kept.sort((a, b) => a - b);
      const at = (p) => kept[Math.min(kept.length - 1, Math.ceil(p * kept.length) - 1)];
      return res.end(JSON.stringify({ p50: at(0.5), p999: at(0.999) }));
    }
    if (!delay) return res.end('ok');
    const start = performance.now();
    setTimeout(() => { res.end('ok'); times.push([start, performance.now() - start]); }, delay);
  });
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // The target goes with the bench, however the bench ends.
  if (child.pid) watchOver({ pids: [child.pid] });
  const [portText] = await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${String(portText).trim()}/`, child };
}

/**
 * A client in its own process, reporting its CPU time at exit (cpu-at-exit.js).
 * @param {string[]} args node's arguments @returns {Promise<{ stdout: string, stderr: string, code: number }>}
 */
async function measuredClient(args) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_OPTIONS: CPU_AT_EXIT },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'close');
  return { stdout, stderr, code };
}

/**
 * @param {string} url @param {number} connections
 * @param {{ seconds?: number, requests?: number }} amount how long, or how many requests
 */
export async function autocannon(url, connections, { seconds, requests }) {
  const args = [
    AUTOCANNON,
    '-c',
    String(connections),
    ...(requests ? ['-a', String(requests)] : ['-d', String(seconds)]),
    '-j',
  ];
  for (const header of ID_HEADERS) args.push('-H', header);
  const { stdout, stderr } = await measuredClient([...args, url]);
  const result = JSON.parse(stdout);
  return { rps: result.requests.total / result.duration, requests: result.requests.total, cpu: cpuOf(stderr) };
}

/**
 * undici alone, the HTTP client under paasmon's generator: the floor of its CPU per request.
 * @param {string} url @param {number} connections @param {number} seconds
 */
export async function undiciAlone(url, connections, seconds) {
  const { stdout, stderr, code } = await measuredClient([
    ...CLI_V8_FLAGS,
    ...[UNDICI_LOOP, url, String(connections), String(seconds)],
  ]);
  if (code !== 0) throw new Error(`undici alone failed (exit ${code}): ${stdout}${stderr}`);
  const requests = numberIn(stdout, /requests (\d+)/);
  return { rps: requests / numberIn(stdout, /seconds (\S+)/), requests, cpu: cpuOf(stderr) };
}
