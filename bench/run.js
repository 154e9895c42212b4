// npm run bench -- <name>: runs bench/<name>.bench.js (plain scripts that print their figures).
import fs from 'node:fs';

const name = process.argv[2];
const available = fs
  .readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.replace('.bench.js', ''));
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}>`);
  process.exit(2);
}
await import(`./${name}.bench.js`);
