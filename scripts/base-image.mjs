// The base images a Dockerfile builds FROM, made available to an engine
// (scripts/docker-engine.mjs) that may reach no image registry. An image the
// engine has already is used as it is; else it is pulled; when the pull fails,
// an official Node image (node:<major>-<debian release>[-slim]) gets a
// stand-in, tagged with the same name so that the Dockerfile builds unchanged:
//
// - the Debian release from Debian's own packages (`debootstrap
//   --variant=minbase`), from the mirror apt uses on this machine, with the
//   documentation, man pages, locales and package lists removed as in
//   debian:<release>-slim;
// - this machine's Node and npm where the official image has its own:
//   /usr/local/bin/node, /usr/local/lib/node_modules/npm (and corepack), the
//   npm, npx and corepack links in /usr/local/bin, the headers in
//   /usr/local/include/node, and the official image's docker-entrypoint.sh,
//   ENTRYPOINT and CMD;
// - the `node` user and group (uid and gid 1000, home /home/node, bash);
// - this machine's certificate bundle and npm settings (cafile, proxies,
//   registry) in npm's global configuration, /usr/local/etc/npmrc, so that
//   `npm ci` in a build reaches the registry as it does on this machine.
//
// The stand-in is kept in the engine (a label records what it was made from)
// and made again only when any of that changes.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { aptInstall, runSync, which } from './docker-engine.mjs';

/** Bump when the recipe below changes: stand-ins made by an older one are made again. */
const RECIPE = 1;
const LABEL = 'org.pdfsvc.stand-in';

/** The images a Dockerfile builds FROM, without its own stages and `scratch`. */
export function externalBaseImages(dockerfile) {
  const stages = new Set(['scratch']);
  const images = [];
  for (const line of dockerfile.split('\n')) {
    const match = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/i.exec(line);
    if (!match) continue;
    if (!stages.has(match[1].toLowerCase()) && !images.includes(match[1])) images.push(match[1]);
    if (match[2]) stages.add(match[2].toLowerCase());
  }
  return images;
}

/**
 * Makes `image` available to the engine; returns how: 'present', 'pulled',
 * 'stand-in (kept from an earlier run)' or 'stand-in (made now)'.
 */
export function ensureBaseImage(engine, image, { log = (line) => console.error(line) } = {}) {
  // Once per engine and image in a run: the postgres and nginx stand-ins ask for the node stand-in too, and
  // reading its recipe (npm's settings) takes seconds.
  if (!ensured.has(engine)) ensured.set(engine, new Map());
  const images = ensured.get(engine);
  if (!images.has(image)) images.set(image, ensureImage(engine, image, log));
  return images.get(image);
}
const ensured = new WeakMap();

async function ensureImage(engine, image, log) {
  const present = engine.docker(['image', 'inspect', '--format', `{{index .Config.Labels "${LABEL}"}}`, image]);
  const made = present.status === 0 ? present.stdout.trim().replace(/^<no value>$/, '') : undefined;
  if (made === '') return 'present';
  const service = serviceImage(image);
  const recipe = made === undefined ? undefined : service ? await serviceRecipe(engine, service, log) : standInRecipe(image);
  if (recipe && made === recipe.fingerprint) return 'stand-in (kept from an earlier run)';
  if (made === undefined) {
    const pull = engine.docker(['pull', image], { timeout: 600_000 });
    if (pull.status === 0) return 'pulled';
    log(`cannot pull ${image}: ${(pull.stderr.trim() || pull.stdout.trim()).split('\n').pop()}`);
  } else {
    log(`the stand-in for ${image} was made from another Node, npm, certificate bundle, base or recipe; making it again`);
  }
  if (service) buildServiceStandIn(engine, image, recipe ?? (await serviceRecipe(engine, service, log)), log);
  else await makeStandIn(engine, image, recipe ?? standInRecipe(image), log);
  return 'stand-in (made now)';
}

/** What a stand-in for `image` is made of, read from this machine, with a fingerprint of it all. */
function standInRecipe(image) {
  const match = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)-([a-z]+)(-slim)?$/.exec(image);
  if (!match) throw new Error(`${image} cannot be pulled, and a stand-in can only be made for an official Node image (node:<major>-<debian release>[-slim])`);
  const [, major, release] = match;
  const node = realpathSync(process.execPath);
  const nodeVersion = process.version.slice(1);
  if (nodeVersion.split('.')[0] !== major)
    throw new Error(`${image} cannot be pulled, and this machine's Node (${process.version}) cannot stand in for Node ${major}`);
  const npmCli = which('npm');
  if (!npmCli) throw new Error(`${image} cannot be pulled, and a stand-in needs this machine's npm (none on PATH)`);
  const globalModules = runSync(npmCli, ['root', '-g']).stdout.trim();
  const npm = realpathSync(join(globalModules, 'npm'));
  const corepack = existsSync(join(globalModules, 'corepack')) ? realpathSync(join(globalModules, 'corepack')) : undefined;
  const headers = join(dirname(dirname(node)), 'include', 'node');
  const npmrc = npmSettings(npmCli);
  const mirror = debianMirror(release);
  const fingerprint = createHash('sha256')
    .update(
      JSON.stringify({
        RECIPE,
        image,
        release,
        mirror,
        nodeVersion,
        npm: readFileSync(join(npm, 'package.json'), 'utf8'),
        npmrc: npmrc.text,
        ca: npmrc.ca && createHash('sha256').update(readFileSync(npmrc.ca)).digest('hex'),
      }),
    )
    .digest('hex')
    .slice(0, 16);
  return { release, mirror, node, nodeVersion, npm, corepack, headers: existsSync(headers) ? headers : undefined, npmrc, fingerprint };
}

/** The first mirror apt uses on this machine that serves `release` (main), from sources.list and sources.list.d. */
export function debianMirror(release) {
  const files = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').map((name) => join('/etc/apt/sources.list.d', name))];
  for (const file of files.filter((f) => /\.(list|sources)$/.test(f) && existsSync(f))) {
    const text = readFileSync(file, 'utf8');
    const entries = file.endsWith('.sources')
      ? text.split(/\n\s*\n/).map((block) => {
          const field = (name) => new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(block)?.[1].trim().split(/\s+/) ?? [];
          return {
            types: field('Types'),
            uris: field('URIs'),
            suites: field('Suites'),
            components: field('Components'),
            enabled: field('Enabled')[0] !== 'no',
          };
        })
      : text.split('\n').flatMap((line) => {
          const words = line
            .replace(/#.*/, '')
            .replace(/\[[^\]]*\]/, '')
            .trim()
            .split(/\s+/);
          return words[0] === 'deb' ? [{ types: ['deb'], uris: [words[1]], suites: [words[2]], components: words.slice(3), enabled: true }] : [];
        });
    const found = entries.find((e) => e.enabled && e.types.includes('deb') && e.suites.includes(release) && e.components.includes('main'));
    if (found?.uris[0]) return found.uris[0];
  }
  throw new Error(`no apt source on this machine serves Debian ${release} (looked in /etc/apt/sources.list and sources.list.d): debootstrap needs a mirror`);
}

/**
 * npm's settings that decide how it reaches the registry, as this machine's
 * npm resolves them (npmrc files and the environment's proxies), for the
 * stand-in's global npmrc; `ca`: the certificate bundle to copy in.
 */
function npmSettings(npmCli) {
  const get = (name) => {
    const value = runSync(npmCli, ['config', 'get', name]).stdout.trim();
    return value === '' || value === 'null' || value === 'undefined' ? undefined : value;
  };
  const lines = [];
  const cafile = get('cafile');
  const ca = cafile && existsSync(cafile) ? cafile : existsSync('/etc/ssl/certs/ca-certificates.crt') ? '/etc/ssl/certs/ca-certificates.crt' : undefined;
  if (ca) lines.push('cafile=/etc/ssl/certs/ca-certificates.crt');
  for (const name of ['registry', 'proxy', 'https-proxy', 'noproxy', 'strict-ssl']) {
    const value = get(name);
    const isDefault = (name === 'registry' && value === 'https://registry.npmjs.org/') || (name === 'strict-ssl' && value === 'true');
    if (value !== undefined && !isDefault) lines.push(`${name}=${value}`);
  }
  return { ca, text: lines.map((line) => `${line}\n`).join('') };
}

function listDir(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The official image's entry point: runs `node` with the arguments unless the first is a command. */
const ENTRYPOINT = `#!/bin/sh
set -e

# Run command with node if the first argument contains a "-" or is not a system command. The last
# part inside the "{}" is a workaround for the following bug in ash/dash:
# https://bugs.debian.org/cgi-bin/bugreport.cgi?bug=874264
if [ "\${1#-}" != "\${1}" ] || [ -z "$(command -v "\${1}")" ] || { [ -f "\${1}" ] && ! [ -x "\${1}" ]; }; then
  set -- node "$@"
fi

exec "$@"
`;

async function makeStandIn(engine, image, recipe, log) {
  if (process.getuid?.() !== 0) throw new Error(`making a stand-in for ${image} needs root (debootstrap, chroot)`);
  if (!which('debootstrap')) aptInstall(['debootstrap'], log);
  const work = mkdtempSync('/var/tmp/pdfsvc-stand-in-');
  const root = join(work, 'rootfs');
  try {
    const started = Date.now();
    log(`making a stand-in for ${image}: debootstrap --variant=minbase ${recipe.release} from ${recipe.mirror}`);
    const bootstrap = runSync('debootstrap', ['--variant=minbase', recipe.release, root, recipe.mirror], { timeout: 900_000 });
    if (bootstrap.status !== 0) throw new Error(`debootstrap failed: ${(bootstrap.stdout + bootstrap.stderr).trim().split('\n').slice(-3).join(' ')}`);

    // Node and npm laid out as in the official image.
    const local = join(root, 'usr/local');
    mkdirSync(join(local, 'bin'), { recursive: true });
    mkdirSync(join(local, 'lib/node_modules'), { recursive: true });
    mkdirSync(join(local, 'include'), { recursive: true });
    mkdirSync(join(local, 'etc'), { recursive: true });
    copyFileSync(recipe.node, join(local, 'bin/node'));
    chmodSync(join(local, 'bin/node'), 0o755);
    copyTree(recipe.npm, join(local, 'lib/node_modules/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
    if (recipe.corepack) {
      copyTree(recipe.corepack, join(local, 'lib/node_modules/corepack'));
      symlinkSync('../lib/node_modules/corepack/dist/corepack.js', join(local, 'bin/corepack'));
    }
    if (recipe.headers) copyTree(recipe.headers, join(local, 'include/node'));
    writeFileSync(join(local, 'bin/docker-entrypoint.sh'), ENTRYPOINT, { mode: 0o755 });

    // How npm reaches the registry from here.
    if (recipe.npmrc.ca) {
      mkdirSync(join(root, 'etc/ssl/certs'), { recursive: true });
      copyFileSync(recipe.npmrc.ca, join(root, 'etc/ssl/certs/ca-certificates.crt'));
    }
    writeFileSync(join(local, 'etc/npmrc'), recipe.npmrc.text);

    // The official image's user.
    const chroot = which('chroot') ?? '/usr/sbin/chroot';
    for (const args of [
      ['groupadd', '--gid', '1000', 'node'],
      ['useradd', '--uid', '1000', '--gid', 'node', '--shell', '/bin/bash', '--create-home', 'node'],
    ]) {
      const made = runSync(chroot, [root, ...args]);
      if (made.status !== 0) throw new Error(`chroot ${args.join(' ')} failed: ${made.stderr.trim()}`);
    }
    const check = runSync(chroot, [root, '/usr/local/bin/node', '-e', 'process.stdout.write(process.version)'], {
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
    if (check.stdout !== process.version)
      throw new Error(`this machine's Node does not run in the stand-in: ${check.error?.message ?? (check.stderr.trim() || check.stdout)}`);

    // As debian:<release>-slim: no documentation (copyright files kept), man pages, locales or package lists.
    runSync('sh', [
      '-c',
      `cd '${root}' && find usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete && find usr/share/doc -mindepth 1 -type d -empty -delete && rm -rf usr/share/man/* usr/share/info/* usr/share/locale/* var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb var/log/*.log var/log/apt/*`,
    ]);

    const changes = [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `ENV NODE_VERSION=${recipe.nodeVersion}`,
      `LABEL ${LABEL}=${recipe.fingerprint}`,
      'ENTRYPOINT ["docker-entrypoint.sh"]',
      'CMD ["node"]',
    ];
    const imported = runSync(
      'bash',
      [
        '-o',
        'pipefail',
        '-c',
        `tar -C '${root}' --numeric-owner -c . | "$0" import ${changes.map((c) => `--change '${c}'`).join(' ')} - '${image}'`,
        engine.cli,
      ],
      { env: engine.env, timeout: 600_000 },
    );
    if (imported.status !== 0) throw new Error(`docker import of the stand-in failed: ${imported.stderr.trim()}`);
    log(
      `stand-in ${image} made in ${Math.round((Date.now() - started) / 1000)} s (Node ${process.version}, Debian ${recipe.release}, npm settings: ${recipe.npmrc.text.trim().replace(/\n/g, ', ') || 'none'})`,
    );
  } finally {
    removeWork(work);
  }
}

/**
 * Deletes the work directory, after unmounting whatever debootstrap left
 * mounted in it (/proc, /sys of a run that failed halfway): a recursive
 * delete must never walk into the machine's own /proc or /dev.
 */
function removeWork(work) {
  const mounted = () =>
    readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1])
      .filter((point) => point && (point === work || point.startsWith(`${work}/`)));
  for (const point of mounted().sort().reverse()) runSync('umount', ['-l', point]);
  const left = mounted();
  if (left.length > 0) throw new Error(`left ${work} in place: ${left.join(', ')} still mounted`);
  rmSync(work, { recursive: true, force: true });
}

/** cp -a: modes, links and times as they are. */
function copyTree(from, to) {
  const copied = runSync('cp', ['-a', from, to]);
  if (copied.status !== 0) throw new Error(`cp -a ${from} ${to} failed: ${copied.stderr.trim()}`);
}

// Stand-ins for the other official images deploy/compose.yaml runs
// (postgres:<major>-<release>, nginx:<major.minor>), for engines that reach no
// registry: Debian's own packages of that PostgreSQL or nginx, installed with
// apt from the mirror this machine uses, on top of the Node stand-in above (so
// no second debootstrap: the layers are shared, and the Node in them is
// unused), with what compose.yaml relies on made to behave as the official
// image does. They are tagged with the official names, kept in the engine
// with a label recording what they were made from, and made again when the
// Node stand-in or the recipe changes. Real deployments use the official images.

/** postgres:15-bookworm → { kind, release, major }; nginx:1.22 → { kind, release, version }; else undefined. */
function serviceImage(image) {
  const postgres = /^(?:docker\.io\/)?(?:library\/)?postgres:(\d+)-([a-z]+)$/.exec(image);
  if (postgres) return { kind: 'postgres', major: postgres[1], release: postgres[2] };
  // Debian bookworm's nginx is 1.22; the build checks that the version installed is the one named.
  const nginx = /^(?:docker\.io\/)?(?:library\/)?nginx:(\d+\.\d+)(?:\.\d+)?(?:-([a-z]+))?$/.exec(image);
  if (nginx) return { kind: 'nginx', version: nginx[1], release: nginx[2] ?? 'bookworm' };
  return undefined;
}

/**
 * The official postgres image's entry point, for what compose.yaml uses: on
 * an empty data directory, initdb with POSTGRES_USER as the superuser and
 * POSTGRES_PASSWORD as its password (refused without one, as the official
 * image does), the database POSTGRES_DB, password (scram-sha-256) log-ins
 * from any address; then the server, as the postgres user.
 */
const POSTGRES_ENTRYPOINT = `#!/bin/bash
set -Eeo pipefail
if [ "\${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  chmod 2775 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "$POSTGRES_PASSWORD" ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified (POSTGRES_PASSWORD).' >&2
    exit 1
  fi
  : "\${POSTGRES_USER:=postgres}"
  : "\${POSTGRES_DB:=$POSTGRES_USER}"
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\\n' "$POSTGRES_PASSWORD") $POSTGRES_INITDB_ARGS
  printf '\\nhost all all all scram-sha-256\\n' >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo 'PostgreSQL init process complete; ready for start up.'
fi
exec "$@"
`;

/** apt-get inside a build, from `mirror`, with this machine's Check-Valid-Until (a snapshot mirror's Release files are past it). */
function aptLines(mirror, release, packages) {
  const validUntil = runSync('apt-config', ['dump', 'Acquire::Check-Valid-Until']).stdout.includes('"false"') ? ' -o Acquire::Check-Valid-Until=false' : '';
  return [
    `RUN printf 'deb ${mirror} ${release} main\\n' > /etc/apt/sources.list && rm -f /etc/apt/sources.list.d/* \\`,
    // No service started by a package's postinst (there is no init here).
    "  && printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d \\",
    `  && apt-get${validUntil} update -qq \\`,
    `  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${packages} \\`,
    '  && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb /usr/share/doc/*/changelog* /usr/share/man/*',
  ];
}

/** The Dockerfile (and files beside it) of a postgres or nginx stand-in, FROM the Node stand-in `from`. */
function serviceBuild(service, from, mirror) {
  if (service.kind === 'postgres') {
    const bin = `/usr/lib/postgresql/${service.major}/bin`;
    return {
      files: { 'docker-entrypoint.sh': POSTGRES_ENTRYPOINT },
      dockerfile: [
        `FROM ${from}`,
        // As the official image: no cluster made by the package, every address listened on, UTF-8.
        ...aptLines(mirror, service.release, 'postgresql-common').map((line, i, all) =>
          i === all.length - 1 ? `${line} \\\n  && sed -ri 's/#?(create_main_cluster) .*$/\\1 = false/' /etc/postgresql-common/createcluster.conf` : line,
        ),
        ...aptLines(mirror, service.release, `postgresql-${service.major}`),
        `RUN test -x ${bin}/postgres && sed -ri "s!^#?(listen_addresses)\\s*=\\s*\\S+.*!\\1 = '*'!" /usr/share/postgresql/${service.major}/postgresql.conf.sample && grep -F "listen_addresses = '*'" /usr/share/postgresql/${service.major}/postgresql.conf.sample && mkdir -p /var/run/postgresql /var/lib/postgresql/data && chown -R postgres:postgres /var/run/postgresql /var/lib/postgresql && chmod 2777 /var/run/postgresql`,
        'COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh',
        'RUN chmod 755 /usr/local/bin/docker-entrypoint.sh',
        `ENV PATH=$PATH:${bin} PGDATA=/var/lib/postgresql/data LANG=C.UTF-8`,
        'VOLUME /var/lib/postgresql/data',
        'ENTRYPOINT ["docker-entrypoint.sh"]',
        'STOPSIGNAL SIGINT',
        'EXPOSE 5432',
        'CMD ["postgres"]',
      ].join('\n'),
    };
  }
  return {
    files: {},
    dockerfile: [
      `FROM ${from}`,
      ...aptLines(mirror, service.release, 'nginx'),
      // The version named in the tag, or no image.
      `RUN nginx -v 2>&1 | grep -E 'nginx/${service.version.replace('.', '\\.')}(\\.|$)'`,
      // As the official image: logs to the container's output, and the
      // temporary files (request bodies, proxied answers) under
      // /var/cache/nginx, where compose.yaml mounts a tmpfs (Debian's nginx
      // keeps them in /var/lib/nginx).
      'RUN ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log \\',
      '  && rm -rf /var/lib/nginx /etc/nginx/sites-enabled/* && mkdir -p /var/cache/nginx && ln -s /var/cache/nginx /var/lib/nginx',
      'ENTRYPOINT []',
      'EXPOSE 80',
      'STOPSIGNAL SIGQUIT',
      'CMD ["nginx", "-g", "daemon off;"]',
    ].join('\n'),
  };
}

/** What a postgres or nginx stand-in is made from (the Node stand-in, made or kept first), with a fingerprint of it all. */
async function serviceRecipe(engine, service, log) {
  const from = `node:${process.versions.node.split('.')[0]}-${service.release}-slim`;
  await ensureBaseImage(engine, from, { log });
  const fromId = engine.docker(['image', 'inspect', '--format', '{{.Id}}', from]).stdout.trim();
  const build = serviceBuild(service, from, debianMirror(service.release));
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ RECIPE, fromId, ...build }))
    .digest('hex')
    .slice(0, 16);
  return { ...build, from, fingerprint };
}

function buildServiceStandIn(engine, image, recipe, log) {
  const started = Date.now();
  log(`making a stand-in for ${image}: Debian's packages on ${recipe.from}`);
  const previous = engine.docker(['image', 'inspect', '--format', '{{.Id}}', image]).stdout.trim();
  const context = mkdtempSync('/var/tmp/pdfsvc-stand-in-');
  try {
    writeFileSync(join(context, 'Dockerfile'), `${recipe.dockerfile}\n`);
    for (const [name, text] of Object.entries(recipe.files)) writeFileSync(join(context, name), text);
    // The host's network: apt reaches the mirror as this machine does, bridge or not.
    const build = engine.docker(['build', '--progress', 'plain', '--network', 'host', '--label', `${LABEL}=${recipe.fingerprint}`, '-t', image, context], {
      timeout: 900_000,
    });
    if (build.status !== 0)
      throw new Error(`building the stand-in for ${image} failed:\n${(build.stdout + build.stderr).trim().split('\n').slice(-15).join('\n')}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  // A stand-in made by an older recipe is of no use now.
  if (previous && previous !== engine.docker(['image', 'inspect', '--format', '{{.Id}}', image]).stdout.trim()) engine.docker(['image', 'rm', previous]);
  log(`stand-in ${image} made in ${Math.round((Date.now() - started) / 1000)} s`);
}
