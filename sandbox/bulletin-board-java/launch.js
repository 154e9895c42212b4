// How the Java sample app is found, compiled and started: `javac` compiles its sources once into a
// directory (no build tool), `java` runs them with the PostgreSQL JDBC driver on the class path.
// The driver comes from PAASMON_JDBC_JAR, else Debian's libpostgresql-jdbc-java.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const JAVA_SOURCES = fileURLToPath(new URL('.', import.meta.url));
export const DEFAULT_JDBC_JAR = '/usr/share/java/postgresql.jar';
/** What the demo prints when the Java app cannot run here. */
export const JAVA_INSTALL_HINT =
  'apt-get install default-jdk-headless libpostgresql-jdbc-java (or set PAASMON_JDBC_JAR to a PostgreSQL JDBC jar)';

/** The executable `name` on PATH, if any. @param {string} name @param {string | undefined} searchPath */
export function onPath(name, searchPath) {
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/**
 * The JDK tools and the JDBC driver, or what is missing.
 * @param {Record<string, string | undefined>} env PATH, PAASMON_JDBC_JAR
 * @returns {{ java: string, javac: string, jar: string, missing?: undefined } | { missing: string }}
 */
export function findJava(env) {
  const java = onPath('java', env.PATH);
  const javac = onPath('javac', env.PATH);
  const jar = env.PAASMON_JDBC_JAR || DEFAULT_JDBC_JAR;
  if (!java || !javac) return { missing: `no ${java ? 'javac' : 'java'} on PATH` };
  if (!fs.existsSync(jar)) return { missing: `no PostgreSQL JDBC driver at ${jar}` };
  return { java, javac, jar };
}

/**
 * Compiles the app's sources into `classesDir`; rejects with javac's output when it fails.
 * @param {{ javac: string, jar: string }} tools @param {string} classesDir
 */
export async function compileJavaApp({ javac, jar }, classesDir) {
  const sources = fs
    .readdirSync(JAVA_SOURCES)
    .filter((f) => f.endsWith('.java'))
    .map((f) => path.join(JAVA_SOURCES, f));
  const child = spawn(javac, ['-nowarn', '-d', classesDir, '-cp', jar, ...sources], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (d) => {
    errors += d;
  });
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`javac failed on the Java sample app:\n${errors.trim()}`);
}

/**
 * The `java` arguments of one instance: a heap within the platform's 256 MB memory limit.
 * @param {{ jar: string }} tools @param {string} classesDir
 */
export function javaAppArgs({ jar }, classesDir) {
  return ['-Xmx160m', '-Xss512k', '-cp', `${classesDir}${path.delimiter}${jar}`, 'Main'];
}
