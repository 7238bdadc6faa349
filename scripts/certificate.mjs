// Self-signed certificates for servers on this machine's loopback, made by
// openssl: for the tests (test/helpers/certificate.ts) and for the
// deployment run as processes (scripts/multi-region.mjs) alike.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A self-signed certificate for 127.0.0.1 and localhost (two days), written
 * into `dir` as `${prefix}cert.pem` and `${prefix}key.pem`. Options: keyType
 * 'rsa' (RSA 2048, the default) or 'ec' (P-256), prefix, commonName.
 */
export async function selfSignedCertificate(dir, options = {}) {
  const prefix = options.prefix ?? '';
  const [cert, key] = [join(dir, `${prefix}cert.pem`), join(dir, `${prefix}key.pem`)];
  const newKey = options.keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'] : ['-newkey', 'rsa:2048'];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    ...newKey,
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    `/CN=${options.commonName ?? 'pdfsvc-test'}`,
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  return { cert, key };
}
