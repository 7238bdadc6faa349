// A deploy/ nginx configuration made runnable on this machine's loopback,
// unprivileged and in the foreground: for test/server/scale-out.test.ts
// (deploy/nginx.conf) and scripts/multi-region.mjs (deploy/nginx-global.conf).
// The files themselves are run, with only their machine-specific lines
// rewritten, so that what is tested is what is deployed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Replaces every match of `pattern` (global) in `text`, read from `file`,
 * which must match exactly `count` times: a configuration that changed shape
 * is an error, not a line silently left pointing at /etc or /var.
 * `replace(index, ...groups)`: `index` counts the matches from 0.
 */
export function rewrite(file, text, pattern, count, what, replace) {
  const found = text.match(pattern)?.length ?? 0;
  if (found !== count)
    throw new Error(`${file} changed shape: expected ${count} ${what}, found ${found} (scripts/local-nginx.mjs rewrites them to run it here)`);
  let index = 0;
  // The callback's last two arguments are the offset and the whole text; the capture groups come before.
  return text.replace(pattern, (_match, ...rest) => replace(index++, ...rest.slice(0, -2)));
}

/**
 * `file` (under the repository, e.g. deploy/nginx.conf) made runnable: its
 * pid, logs (`dir`/nginx-error.log, nginx-access.log) and temporary files in
 * `dir`, one worker, listening on 127.0.0.1:`port` with the certificate
 * `cert` and its `key`, balancing over the loopback ports `upstreams` (one
 * per `server` line of its upstream block, in order).
 */
export function localNginxConf(file, { dir, port, upstreams, cert, key }) {
  const change = (text, pattern, count, what, replace) => rewrite(file, text, pattern, count, what, replace);
  let conf = readFileSync(join(ROOT, file), 'utf8');
  conf = change(conf, /^worker_processes\s+\S+;$/gm, 1, 'worker_processes', () => 'worker_processes 1;');
  conf = change(conf, /^pid\s+\/\S+;$/gm, 1, 'pid', () => `pid ${dir}/nginx.pid;`);
  conf = change(
    conf,
    /^(\s*)error_log\s+\/\S+((?:\s+\w+)?);$/gm,
    1,
    'error_log',
    (_i, indent, level) => `${indent}error_log ${dir}/nginx-error.log${level ?? ''};`,
  );
  conf = change(
    conf,
    /^(\s*)access_log\s+\/\S+(\s+\w+)?;$/gm,
    1,
    'access_log with a path',
    (_i, indent, format) => `${indent}access_log ${dir}/nginx-access.log${format ?? ''};`,
  );
  conf = change(
    conf,
    /^(\s*)server\s+[\w.-]+:\d+((?:\s+[^;\s]+)*);$/gm,
    upstreams.length,
    'upstream servers',
    (i, indent, params) => `${indent}server 127.0.0.1:${upstreams[i]}${params ?? ''};`,
  );
  conf = change(conf, /^(\s*)listen\s+443\s+ssl;$/gm, 1, '`listen 443 ssl;`', (_i, indent) => `${indent}listen 127.0.0.1:${port} ssl;`);
  conf = change(conf, /^(\s*)ssl_certificate\s+\/\S+;$/gm, 1, 'ssl_certificate', (_i, indent) => `${indent}ssl_certificate ${cert};`);
  conf = change(conf, /^(\s*)ssl_certificate_key\s+\/\S+;$/gm, 1, 'ssl_certificate_key', (_i, indent) => `${indent}ssl_certificate_key ${key};`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `    ${name}_temp_path ${dir}/${name}_temp;`).join('\n');
  conf = change(conf, /^http \{$/gm, 1, '`http {`', () => `http {\n${temp}`);
  // In the foreground, as a child of its caller; as root, workers stay root
  // (the default, nobody, could not enter the private temporary directory).
  const head = ['daemon off;', 'master_process on;', ...(process.getuid?.() === 0 ? ['user root;'] : [])].join('\n');
  return `${head}\n${conf}`;
}
