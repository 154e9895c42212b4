// Starts one helper (postgres | prometheus | opensearch | elasticsearch), prints `STARTED {pid, dir}`
// and waits to be killed: the parent whose death the helper must not survive.
import { startTestDatabase } from './database.js';
import { startPrometheus } from './prometheus.js';
import { startSearchNode } from './search-node.js';

const kind = process.argv[2];
const helper =
  kind === 'postgres'
    ? await startTestDatabase()
    : kind === 'prometheus'
      ? await startPrometheus({ targets: ['127.0.0.1:9'] })
      : await startSearchNode(/** @type {'opensearch' | 'elasticsearch'} */ (kind));
console.log(`STARTED ${JSON.stringify({ pid: helper.pid, dir: helper.dir })}`);
setInterval(() => {}, 60_000);
