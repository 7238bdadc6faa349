/**
 * deploy/compose.yaml, checked without a Docker engine (scripts/test-compose.mjs
 * runs it in containers, in CI; the same topology runs as processes in
 * test/deploy/multi-region.test.ts):
 *
 * - Debian's docker-compose reads it (`docker-compose config`), and refuses
 *   it without the database password;
 * - the services issue 20 names, each region on a port of its own, every
 *   pdfsvc service on the one PostgreSQL, read-only, with a health check, and
 *   with options that `pdfsvc` itself knows (its --help);
 * - the us-hipaa server keeps its region's promises (TLS with a certificate,
 *   an audit log in the database, nothing that logs more);
 * - nginx (deploy/nginx-global.conf) balances over exactly the global
 *   servers and retries a request whose server dies on the other one.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { haveTool } from '../helpers/tools.js';
import { CLI, ROOT } from '../server/spawn.js';

const COMPOSE = join(ROOT, 'deploy', 'compose.yaml');
const NGINX_CONF = join(ROOT, 'deploy', 'nginx-global.conf');
const DOCKER_COMPOSE = '/usr/bin/docker-compose';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  read_only?: boolean;
  tmpfs?: string[];
}

/** The file as Compose reads it: YAML 1.1 merge keys (`<<: *pdfsvc`) resolved. */
const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const PDFSVC = ['dashboard', 'global-1', 'global-2', 'eu', 'us-hipaa'];

/** The value after `--name` in a command, or undefined. */
const option = (command: string[], name: string) => {
  const at = command.indexOf(`--${name}`);
  return at < 0 ? undefined : command[at + 1];
};

describe('deploy/compose.yaml', () => {
  it('has the services of the multi-region set-up, and only those', () => {
    expect(Object.keys(services).sort()).toEqual(['dashboard', 'eu', 'global-1', 'global-2', 'nginx', 'postgres', 'us-hipaa']);
    expect(services.postgres.healthcheck?.test).toEqual(['CMD', 'pg_isready', '-U', 'pdfsvc', '-d', 'pdfsvc']);
    expect(services.postgres.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    // The database is reached on the compose network only.
    expect(services.postgres.ports).toBeUndefined();
  });

  it.each(PDFSVC)('%s: the pdfsvc image, read-only, on the shared PostgreSQL once it is healthy, with a health check', (name) => {
    const service = services[name];
    expect(service.image).toBe('pdfsvc:latest');
    expect(service.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
    expect(service.read_only).toBe(true);
    // One database for every region: the same URL, to the postgres service, its password from the environment.
    expect(service.environment?.PDFSVC_DATABASE_URL).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's own ${…} substitution, checked as written.
      'postgres://pdfsvc:${PDFSVC_DB_PASSWORD:?set PDFSVC_DB_PASSWORD to the database password}@postgres:5432/pdfsvc',
    );
    expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service.healthcheck?.test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    // The check reads the URL each service listens on: 8443 in every container.
    expect(service.environment?.PDFSVC_HEALTHZ_URL).toMatch(/^https:\/\/127\.0\.0\.1:8443\//);
    expect(option(service.command!, 'port')).toBe('8443');
    // No database URL on the command line, where ps shows it.
    expect(service.command!.join(' ')).not.toContain('postgres://');
  });

  it('each region on a port of its own; the global servers are reached through nginx only', () => {
    const regionOf = (name: string) => option(services[name].command!, 'region');
    expect(Object.fromEntries(['global-1', 'global-2', 'eu', 'us-hipaa'].map((name) => [name, regionOf(name)]))).toEqual({
      'global-1': 'global',
      'global-2': 'global',
      eu: 'eu',
      'us-hipaa': 'us-hipaa',
    });
    expect(services['global-1'].ports).toBeUndefined();
    expect(services['global-2'].ports).toBeUndefined();
    const published = { global: services.nginx.ports, eu: services.eu.ports, 'us-hipaa': services['us-hipaa'].ports, dashboard: services.dashboard.ports };
    expect(published).toEqual({ global: ['8443:443'], eu: ['8444:8443'], 'us-hipaa': ['8445:8443'], dashboard: ['8090:8443'] });
    expect(services.dashboard.command![0]).toBe('dashboard');
    // TLS everywhere, between nginx and the global servers too.
    for (const name of ['dashboard', 'global-1', 'global-2', 'eu', 'us-hipaa']) expect(services[name].command, name).toContain('--https');
    for (const name of ['global-1', 'global-2', 'eu', 'us-hipaa']) expect(services[name].command![0], name).toBe('serve');
  });

  it('us-hipaa: TLS with the mounted certificate, the audit log in the database, nothing that logs more', () => {
    const command = services['us-hipaa'].command!;
    expect(command).toContain('--https');
    expect(option(command, 'cert')).toBe('/etc/pdfsvc-tls/tls.crt');
    expect(option(command, 'key')).toBe('/etc/pdfsvc-tls/tls.key');
    expect(option(command, 'audit-log')).toBe('database');
    for (const refused of ['--insecure-development', '--metrics-key-labels']) expect(command).not.toContain(refused);
    expect(Object.keys(services['us-hipaa'].environment!)).not.toEqual(expect.arrayContaining(['NODE_DEBUG', 'PDFSVC_DEBUG', 'NODE_OPTIONS']));
    expect(services['us-hipaa'].volumes).toContain('./tls:/etc/pdfsvc-tls:ro');
  });

  it('every pdfsvc command uses only options pdfsvc knows (its --help)', async () => {
    for (const name of PDFSVC) {
      const command = services[name].command!;
      const help = (await execa(process.execPath, [CLI, command[0], '--help'])).stdout;
      for (const flag of command.filter((word) => word.startsWith('--'))) expect(help, `${name}: ${flag}`).toMatch(new RegExp(`(^|\\s)${flag}[\\s,]`));
    }
  });

  it('nginx: deploy/nginx-global.conf over exactly the global servers, retrying a request whose server dies', () => {
    expect(services.nginx.volumes).toEqual(['./nginx-global.conf:/etc/nginx/nginx.conf:ro', './tls:/etc/nginx/tls:ro']);
    expect(services.nginx.depends_on).toEqual({ 'global-1': { condition: 'service_healthy' }, 'global-2': { condition: 'service_healthy' } });
    // Spilled request bodies stay in memory.
    expect(services.nginx.tmpfs).toContain('/var/cache/nginx');
    const conf = readFileSync(NGINX_CONF, 'utf8').replace(/#.*$/gm, '');
    expect([...conf.matchAll(/^\s*server\s+([\w.-]+):8443\b/gm)].map((m) => m[1])).toEqual(['global-1', 'global-2']);
    expect(conf).toMatch(/^\s*proxy_next_upstream error timeout non_idempotent;$/m);
    // A body can only be replayed if nginx kept it.
    expect(conf).toMatch(/^\s*proxy_request_buffering on;$/m);
    expect(conf).toMatch(/^\s*proxy_pass https:\/\/global;$/m);
  });
});

const HAVE_COMPOSE = haveTool(DOCKER_COMPOSE, 'the docker-compose check of deploy/compose.yaml', 'apt-get install -y --no-install-recommends docker-compose');

describe.skipIf(!HAVE_COMPOSE)(`deploy/compose.yaml read by Debian's docker-compose${HAVE_COMPOSE ? '' : ` (skipped: no ${DOCKER_COMPOSE})`}`, () => {
  const run = (env: Record<string, string>) =>
    execa(DOCKER_COMPOSE, ['--project-directory', join(ROOT, 'deploy'), '-f', COMPOSE, 'config'], {
      reject: false,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      extendEnv: false,
      timeout: 60_000,
    });

  it('`docker-compose config` accepts it, with every service, once the database password is set', async () => {
    const result = await run({ PDFSVC_DB_PASSWORD: 'not-a-real-password' });
    expect(result.exitCode, result.stderr).toBe(0);
    const resolved = parse(result.stdout) as { services: Record<string, Service> };
    expect(Object.keys(resolved.services).sort()).toEqual(Object.keys(services).sort());
    expect(resolved.services['us-hipaa'].environment?.PDFSVC_DATABASE_URL).toBe('postgres://pdfsvc:not-a-real-password@postgres:5432/pdfsvc');
  });

  it('refuses it without the database password, saying which variable to set', async () => {
    const result = await run({});
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('set PDFSVC_DB_PASSWORD to the database password');
  });
});
