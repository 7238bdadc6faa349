// Types for certificate.mjs (test/helpers/certificate.ts re-exports it).
export interface CertificateOptions {
  /** RSA 2048 (default) or EC P-256. */
  keyType?: 'rsa' | 'ec';
  /** Before the file names: `${prefix}cert.pem`, `${prefix}key.pem`. */
  prefix?: string;
  commonName?: string;
}
export declare function selfSignedCertificate(dir: string, options?: CertificateOptions): Promise<{ cert: string; key: string }>;
