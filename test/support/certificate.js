// Certificates made by the openssl command (.ci/run installs it), for tests of TLS listeners and of TLS
// verification: self-signed for localhost and 127.0.0.1, or a private CA and certificates it signs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
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

/**
 * A private certificate authority: writes `<name>.key` and `<name>.crt` (CA:TRUE) into `dir`.
 * @param {string} dir @param {string} name @returns {{ key: string, cert: string }} their paths
 */
export function certificateAuthority(dir, name) {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  const ca = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, ...ca];
  execFileSync('openssl', [...args, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}

/**
 * A certificate for `commonName` (and `altNames`, e.g. DNS:localhost,IP:127.0.0.1) signed by `ca`: writes
 * `<name>.key` and `<name>.crt` into `dir`.
 * @param {string} dir @param {string} name @param {{ key: string, cert: string }} ca
 * @param {{ commonName: string, altNames?: string }} subject
 * @returns {{ key: string, cert: string }} their paths
 */
export function signedCertificate(dir, name, ca, { commonName, altNames }) {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  const request = path.join(dir, `${name}.csr`);
  const extensions = path.join(dir, `${name}.ext`);
  fs.writeFileSync(extensions, altNames ? `subjectAltName=${altNames}\n` : 'basicConstraints=CA:FALSE\n');
  const subject = ['-subj', `/CN=${commonName}`];
  execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', ...subject, '-keyout', key, '-out', request], {
    stdio: 'ignore',
  });
  const signing = ['-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', extensions];
  execFileSync('openssl', ['x509', '-req', '-in', request, ...signing, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}
