/**
 * Where a client reaches a server bound to every interface (0.0.0.0 or ::),
 * an address no client can use as it is: localhost on this machine, and the
 * machine's network addresses, chosen as listhen lists them (not internal,
 * not link-local; IPv6 ones only for ::).
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** 0.0.0.0 or ::, every interface. */
export function isUnspecified(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** The origin a server on `host` is known by: `https://127.0.0.1:8443`, `https://[::1]:8443`. */
export function originOf(scheme: string, host: string, port: number): string {
  return `${scheme}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** `local` for links on this machine, `network` for other machines; for a host that is not unspecified, its own origin alone. */
export function reachableOrigins(scheme: string, host: string, port: number): { local: string; network: string[] } {
  if (!isUnspecified(host)) return { local: originOf(scheme, host, port), network: [] };
  const addresses = new Set<string>();
  for (const details of Object.values(networkInterfaces())) {
    for (const d of details ?? []) {
      const v6 = d.family === 'IPv6';
      if (d.internal || d.mac === '00:00:00:00:00:00' || d.address.startsWith('fe80:') || d.address.startsWith('169.254.') || (v6 && host !== '::')) continue;
      addresses.add(originOf(scheme, d.address, port));
    }
  }
  return { local: originOf(scheme, 'localhost', port), network: [...addresses].sort() };
}

/**
 * What a banner line adds for a listener on every interface (`host` 0.0.0.0 or ::), whose own address no client can
 * use: `; reach it at http://localhost:8080 on this machine, http://10.0.0.5:8080 from others`. '' for any other host.
 */
export function reachVia(host: string, reachable: { local: string; network: string[] }, path: string, verb: string): string {
  if (!isUnspecified(host)) return '';
  const others = reachable.network.map((origin) => `${origin}${path}`);
  return `; ${verb} at ${reachable.local}${path} on this machine${others.length ? `, ${others.join(' or ')} from others` : ''}`;
}
