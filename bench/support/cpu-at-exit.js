// Loaded with NODE_OPTIONS=--import into a measured process (paasmon, autocannon): prints the
// process's own CPU time on stderr as it exits, the same way for both.
import fs from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  fs.writeSync(2, `\ncpu-seconds ${(user + system) / 1e6}\n`);
});
