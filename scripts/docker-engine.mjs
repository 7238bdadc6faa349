// A Docker engine for scripts that build and run pdfsvc's image
// (scripts/test-image.mjs; meant for the multi-region and Kubernetes checks
// too). Uses the engine that answers already (DOCKER_HOST, or the default
// socket); else installs Debian's docker.io when dockerd is missing and starts
// a dockerd of its own, with its own socket, data root and state directory,
// so that it never disturbs another engine on the machine, and stops only
// what it started. The data root stays between runs: images built or made
// once (the stand-in base image, BuildKit's npm cache) are reused.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Where a dockerd started here keeps its socket and state (run time) and its
 * images (kept between runs), in a data root per storage driver: BuildKit's
 * cache records in a data root refer to one driver's layers, and fail under
 * another.
 */
const RUN_DIR = '/run/pdfsvc-docker';
const DATA_DIR = '/var/lib/pdfsvc-docker';
export const OWN_ENGINE = {
  socket: `${RUN_DIR}/docker.sock`,
  execRoot: `${RUN_DIR}/exec`,
  pidFile: `${RUN_DIR}/dockerd.pid`,
  log: `${RUN_DIR}/dockerd.log`,
  dataRoot: (driver) => `${DATA_DIR}/${driver ?? 'default'}`,
};

/** A command's result; never throws (`error` says why it could not run at all). */
export function runSync(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

/** A program's path on PATH, or undefined. */
export function which(program) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, program))) return join(dir, program);
  }
  return undefined;
}

/** Installs Debian packages (root only); throws with apt-get's own words when it fails. */
export function aptInstall(packages, log) {
  if (process.getuid?.() !== 0) throw new Error(`${packages.join(' ')} missing, and installing them needs root: apt-get install -y ${packages.join(' ')}`);
  log(`installing ${packages.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let result = runSync('apt-get', ['install', '-y', '-qq', ...packages], { env });
  if (result.status !== 0) {
    // A fresh machine may have no package lists yet.
    runSync('apt-get', ['update', '-qq'], { env });
    result = runSync('apt-get', ['install', '-y', '-qq', ...packages], { env });
  }
  if (result.status !== 0) throw new Error(`apt-get install ${packages.join(' ')} failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
}

/**
 * A docker client that builds with BuildKit (the Dockerfile uses RUN --mount):
 * one with the buildx plugin, or a client older than 23, which asks the
 * engine's own BuildKit when DOCKER_BUILDKIT=1 (Debian bookworm's docker.io,
 * 20.10). A newer client without buildx refuses DOCKER_BUILDKIT=1 and its
 * legacy builder cannot RUN --mount. Returns { cli, env } or undefined.
 */
function buildKitClient() {
  const candidates = [...new Set([which('docker'), '/usr/bin/docker'].filter((path) => path && existsSync(path)))];
  for (const cli of candidates) {
    if (runSync(cli, ['buildx', 'version']).status === 0) return { cli, env: {} };
  }
  for (const cli of candidates) {
    const major = Number(/version (\d+)\./.exec(runSync(cli, ['--version']).stdout)?.[1]);
    if (major > 0 && major < 23) return { cli, env: { DOCKER_BUILDKIT: '1' } };
  }
  return undefined;
}

function answers(cli, env) {
  return runSync(cli, ['info', '--format', '{{.ServerVersion}} {{.Driver}}'], { env, timeout: 20_000 });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts dockerd on OWN_ENGINE's paths with one storage driver (undefined:
 * dockerd's own choice, overlay2 where the kernel and the backing file system
 * allow it). Resolves with the child once the engine answers, or undefined
 * when it exits or stays silent for 60 s (then stopped).
 */
async function startDockerd(cli, env, driver, extraArgs, log) {
  mkdirSync(OWN_ENGINE.execRoot, { recursive: true });
  mkdirSync(OWN_ENGINE.dataRoot(driver), { recursive: true });
  const args = [
    `--host=unix://${OWN_ENGINE.socket}`,
    `--data-root=${OWN_ENGINE.dataRoot(driver)}`,
    `--exec-root=${OWN_ENGINE.execRoot}`,
    `--pidfile=${OWN_ENGINE.pidFile}`,
    ...(driver ? [`--storage-driver=${driver}`] : []),
    ...extraArgs,
  ];
  log(`starting dockerd ${args.join(' ')}`);
  const out = openSync(OWN_ENGINE.log, 'w');
  const child = spawn('dockerd', args, { stdio: ['ignore', out, out], detached: true });
  let exited = false;
  child.once('exit', () => (exited = true));
  const until = Date.now() + 60_000;
  while (Date.now() < until && !exited) {
    if (answers(cli, env).status === 0) return child;
    await sleep(250);
  }
  if (!exited) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  const tail = readFileSync(OWN_ENGINE.log, 'utf8').trim().split('\n').slice(-3).join('\n  ');
  log(`dockerd${driver ? ` with --storage-driver=${driver}` : ''} did not come up; its log ends:\n  ${tail}`);
  return undefined;
}

/**
 * An engine to work with: { cli, env, docker(args, options), driver,
 * started, stop() }. `docker` runs the client synchronously and returns
 * runSync's result. `dockerdArgs`: arguments for a dockerd started here; by
 * default no bridge network and no iptables rules (the scripts use the host's
 * network only, and a sandbox may have no iptables).
 */
export async function dockerEngine({ log = (line) => console.error(line), dockerdArgs = ['--iptables=false', '--bridge=none'] } = {}) {
  let client = buildKitClient();
  // An engine that already answers (DOCKER_HOST, or the default socket).
  if (client && answers(client.cli, { ...process.env, ...client.env }).status === 0) return engineHandle(client, { ...process.env, ...client.env }, false);

  if (!client || !which('dockerd')) aptInstall(['docker.io'], log);
  client ??= buildKitClient();
  if (!client) {
    // Newer Debian releases ship BuildKit's client separately.
    aptInstall(['docker-buildx'], log);
    client = buildKitClient();
  }
  if (!client) throw new Error("no docker client that builds with BuildKit: install docker-buildx, or Debian bookworm's docker.io");
  const env = { ...process.env, ...client.env, DOCKER_HOST: `unix://${OWN_ENGINE.socket}` };
  // One of ours left running (another run, or one stopped uncleanly): use it, leave it.
  if (answers(client.cli, env).status === 0) return engineHandle(client, env, false);

  const drivers = process.env.PDFSVC_DOCKER_STORAGE_DRIVER ? [process.env.PDFSVC_DOCKER_STORAGE_DRIVER] : [undefined, 'vfs'];
  for (const driver of drivers) {
    const child = await startDockerd(client.cli, env, driver, dockerdArgs, log);
    if (child) return engineHandle(client, env, true, child, log);
  }
  throw new Error(`dockerd would not start (storage drivers tried: ${drivers.map((d) => d ?? 'its default').join(', ')}); see ${OWN_ENGINE.log}`);
}

function engineHandle(client, env, started, child, log) {
  const info = answers(client.cli, env).stdout.trim().split(' ');
  // However this script ends (an uncaught error included), the engine it started goes with it.
  const stopOnExit = () => child.kill('SIGTERM');
  if (started) process.once('exit', stopOnExit);
  return {
    cli: client.cli,
    env,
    version: info[0],
    driver: info[1],
    started,
    docker: (args, options = {}) => runSync(client.cli, args, { env, ...options }),
    /** The same, without blocking: resolves with { status, stdout, stderr } when the client exits. */
    dockerAsync: (args) =>
      new Promise((resolve) => {
        const run = spawn(client.cli, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        run.stdout.on('data', (chunk) => (stdout += chunk));
        run.stderr.on('data', (chunk) => (stderr += chunk));
        run.once('error', (error) => resolve({ status: null, stdout, stderr: String(error) }));
        run.once('close', (status) => resolve({ status, stdout, stderr }));
      }),
    /** Stops the dockerd started here (and the containerd it runs); a no-op for an engine found running. */
    async stop() {
      if (!started || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        log('dockerd did not stop within 30 s; killing it');
        child.kill('SIGKILL');
      }, 30_000);
      await exited;
      clearTimeout(timer);
      process.off('exit', stopOnExit);
      // What dockerd leaves mounted when it stops (the host network's
      // namespace under its exec root; its data root, after an unclean stop).
      const leftovers = readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[1])
        .filter((point) => point && [RUN_DIR, DATA_DIR].some((root) => point === root || point.startsWith(`${root}/`)));
      for (const point of leftovers.reverse()) runSync('umount', [point]);
    },
  };
}
