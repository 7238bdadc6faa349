import { join } from 'node:path';
import { execa } from 'execa';

export interface CertificateOptions {
  /** RSA 2048 (default) or EC P-256. */
  keyType?: 'rsa' | 'ec';
  /** Before the file names: `${prefix}cert.pem`, `${prefix}key.pem`. */
  prefix?: string;
  commonName?: string;
}

/** A self-signed certificate for 127.0.0.1 (two days), written into `dir` as cert.pem and key.pem. */
export async function selfSignedCertificate(dir: string, options: CertificateOptions = {}): Promise<{ cert: string; key: string }> {
  const prefix = options.prefix ?? '';
  const [cert, key] = [join(dir, `${prefix}cert.pem`), join(dir, `${prefix}key.pem`)];
  const newKey = options.keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'] : ['-newkey', 'rsa:2048'];
  await execa('openssl', [
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
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { cert, key };
}
