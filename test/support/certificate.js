// A self-signed certificate for localhost and 127.0.0.1, made by the openssl command (.ci/run
// installs it), for tests of TLS listeners and of TLS verification.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Writes `<name>.key` and `<name>.crt` into `dir`.
 * @param {string} dir @param {string} name @returns {{ key: string, cert: string }} their paths
 */
export function selfSignedCertificate(dir, name) {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', ...subject];
  execFileSync('openssl', [...args, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}
