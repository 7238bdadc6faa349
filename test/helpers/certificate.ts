/**
 * Self-signed certificates for the tests' servers. The code lives in
 * scripts/certificate.mjs (types in scripts/certificate.d.mts), so that
 * scripts/multi-region.mjs makes its certificate the way the tests do.
 */
export * from '../../scripts/certificate.mjs';
