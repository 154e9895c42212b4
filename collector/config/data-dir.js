// Where the embedded PostgreSQL keeps its data when PAASMON_DATA_DIR is not set: one place per
// user, whatever the current directory, so a user's runs never "vanish" when they cd elsewhere.
import os from 'node:os';
import path from 'node:path';

/**
 * The XDG data home (~/.local/share/paasmon) of the user; as root /var/tmp/paasmon-0, since the
 * server then runs as its own user, which cannot enter a 0700 home such as /root.
 * @param {Record<string, string | undefined>} env
 * @param {{ uid?: number, home?: string }} [who] defaults to this process
 */
export function defaultDataDir(env, who = {}) {
  const uid = who.uid ?? process.getuid?.() ?? -1;
  if (uid === 0) return '/var/tmp/paasmon-0';
  if (env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)) return path.join(env.XDG_DATA_HOME, 'paasmon');
  const home = who.home ?? env.HOME ?? os.homedir();
  return home ? path.join(home, '.local', 'share', 'paasmon') : `/var/tmp/paasmon-${uid}`;
}
