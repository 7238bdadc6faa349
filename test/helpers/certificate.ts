import { join } from 'node:path';
import { execa } from 'execa';

/** A self-signed certificate for 127.0.0.1 (two days, RSA 2048), written into `dir` as cert.pem and key.pem. */
export async function selfSignedCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  await execa('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=pdfsvc-test',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { cert, key };
}
