/**
 * The US HIPAA region (`--region us-hipaa`): what `pdfsvc serve` adds for
 * workflows that handle protected health information, after HHS's Security
 * Rule (45 CFR 164.312: audit controls, transmission security) and NIST SP
 * 800-52r2 (TLS 1.2 and later only):
 *
 * - TLS only, on every address (loopback included) and on the metrics
 *   listener, with TLS 1.2 as the lowest version and Node's default cipher
 *   list, whatever NODE_OPTIONS (--tls-min-v1.0, --tls-cipher-list) says;
 * - Strict-Transport-Security on every answer;
 * - an audit log (audit.ts) to a destination the operator names;
 * - a start-up check refusing what would store or log more than that.
 *
 * `--insecure-development` relaxes the first point for a development run
 * (plain HTTP, still on loopback only) and allows the one-run development key
 * (which is printed); it is announced loudly at start-up. Nothing else.
 */
import { constants } from 'node:crypto';
import inspector from 'node:inspector';
import tls from 'node:tls';

export const HIPAA_REGION = 'us-hipaa';

/** One year, HSTS's usual lifetime. No includeSubDomains: that commits every name under the domain, the operator's call. */
export const HSTS = 'max-age=31536000';

export const MIN_TLS_VERSION = 'TLSv1.2';

/** The serve options the region looks at. */
export interface RegionOptions {
  https?: boolean;
  cert?: string;
  metricsPort?: number;
  metricsKeyLabels?: boolean;
  auditLog?: string;
  insecureDevelopment?: boolean;
}

/** What the process was started with, beside its options (tests pass their own). */
export interface Runtime {
  env: NodeJS.ProcessEnv;
  execArgv: readonly string[];
  /** True when a debugger is attached or listening (--inspect in the arguments or NODE_OPTIONS). */
  inspectorActive: boolean;
}

export function currentRuntime(): Runtime {
  return { env: process.env, execArgv: process.execArgv, inspectorActive: inspector.url() !== undefined };
}

/**
 * Node options that write the process's memory or its traffic's secrets
 * somewhere, with why each is refused. Worker threads inherit them.
 */
const STORING_NODE_FLAGS: Array<[RegExp, string]> = [
  [/^--inspect(-brk|-wait)?(=|$)/, 'a debugger can read every document and password in memory'],
  [/^--tls-keylog(=|$)/, 'it writes the TLS session keys to a file: with them, a capture of the traffic can be read'],
  [/^--heapsnapshot-(signal|near-heap-limit)(=|$)/, 'heap snapshots are written to disk with the documents in memory at the time'],
  [/^--heap-prof(=|$)/, 'heap profiles are written to disk'],
  [/^--report-(on-signal|uncaught-exception|on-fatalerror)(=|$)/, 'diagnostic reports are written to disk with error messages and the environment'],
];

/**
 * Everything that keeps a server from the region's promises, as [option,
 * why] pairs (empty: none). The caller refuses to start with all of them
 * listed (exit status 2).
 */
export function regionRefusals(region: string, options: RegionOptions, runtime: Runtime): Array<[string, string]> {
  const refusals: Array<[string, string]> = [];
  if (region !== HIPAA_REGION) {
    if (options.insecureDevelopment)
      refusals.push(['insecure-development', `only relaxes --region ${HIPAA_REGION}; the ${region} region allows plain HTTP on loopback without it`]);
    return refusals;
  }
  if (!options.https && !options.insecureDevelopment) {
    refusals.push([
      'https',
      `the ${HIPAA_REGION} region serves TLS only, on every address including loopback (HIPAA transmission security, 45 CFR 164.312(e)): add --https with --cert/--key (or a self-signed certificate), or --insecure-development for a development run without health information`,
    ]);
  }
  if (!options.auditLog) {
    refusals.push([
      'audit-log',
      `the ${HIPAA_REGION} region keeps an audit log of every request (HIPAA audit controls, 45 CFR 164.312(b)): name where it goes with --audit-log stderr or --audit-log file:PATH, or --audit-log database (the accounts database)`,
    ]);
  }
  if (options.metricsKeyLabels) {
    refusals.push([
      'metrics-key-labels',
      `would copy key names into every metrics series, where anyone who can scrape them reads who sent what and when; the ${HIPAA_REGION} region keeps that in the audit log only: drop --metrics-key-labels`,
    ]);
  }
  if (options.metricsPort !== undefined && options.https && !options.cert && !options.insecureDevelopment) {
    refusals.push([
      'metrics-port',
      `in the ${HIPAA_REGION} region the metrics listener serves TLS too, with the certificate of --cert/--key: give them, or drop --metrics-port`,
    ]);
  }
  for (const name of ['NODE_DEBUG', 'NODE_DEBUG_NATIVE', 'PDFSVC_DEBUG']) {
    const value = runtime.env[name];
    if (value)
      refusals.push([
        name,
        `${name}=${value} prints debugging output (${name === 'PDFSVC_DEBUG' ? "internal errors' details" : "Node's own traces of requests, streams and TLS"}) beside the logs; unset it`,
      ]);
  }
  const flags = [...runtime.execArgv, ...(runtime.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  for (const flag of flags) {
    const refused = STORING_NODE_FLAGS.find(([pattern]) => pattern.test(flag));
    if (refused) refusals.push([flag.split('=')[0], `${flag}: ${refused[1]}; start the server without it`]);
  }
  if (runtime.inspectorActive && !refusals.some(([name]) => name.startsWith('--inspect'))) {
    refusals.push(['--inspect', 'a debugger is listening: it can read every document and password in memory; start the server without it']);
  }
  return refusals;
}

/** A keys file with no keys: the one-run development key would be printed (a key in the output). */
export function ephemeralKeyRefusal(): [string, string] {
  return [
    'keys-file',
    `the keys file has no keys, and the ${HIPAA_REGION} region does not make a development key (it would be printed on standard output): create keys with pdfsvc keys create, or add --insecure-development for a development run`,
  ];
}

/**
 * TLS 1.2 as the lowest version and Node's default ciphers, for every TLS
 * server this process makes from now on: set as the process's defaults
 * before listhen creates the server, so no connection is ever accepted with
 * less, and NODE_OPTIONS such as --tls-min-v1.0 or --tls-cipher-list cannot
 * lower them.
 */
export function enforceTlsFloor(): void {
  tls.DEFAULT_MIN_VERSION = MIN_TLS_VERSION;
  (tls as { DEFAULT_CIPHERS: string }).DEFAULT_CIPHERS = constants.defaultCoreCipherList;
}

/** Printed at start-up with --insecure-development. */
export const INSECURE_DEVELOPMENT_WARNING = `WARNING: --insecure-development: this ${HIPAA_REGION} server does not keep the region's promises. It may serve plain HTTP on loopback and use a development key printed below. Never send protected health information to it.`;
