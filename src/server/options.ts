/**
 * The options of `pdfsvc serve`, `pdfsvc keys …` and `pdfsvc accounts …`,
 * declared as data (src/cli/options.ts): the command line is built from
 * them, and serve.ts, keys-cli.ts and store/cli.ts take their types and
 * validation from them. (The database options every store command shares
 * are program.ts's databaseOptions.) Light on purpose: the command line loads
 * this for --help.
 */
import type { OptionMap } from '../cli/options.js';
import { orList, PLANS, REGIONS } from '../core/plans.js';

export const SERVE_OPTIONS = {
  host: { kind: 'text', value: 'host', default: '127.0.0.1', help: 'address to bind; without --https only loopback addresses are allowed' },
  port: { kind: 'integer', value: 'port', min: 0, default: '8080', help: 'port to listen on; 0 picks a free one' },
  region: {
    kind: 'choice',
    value: 'region',
    values: REGIONS,
    default: 'global',
    noun: 'region',
    help: `region this server answers for: ${REGIONS.join(', ')}`,
  },
  'keys-file': { kind: 'text', value: 'path', help: 'read API keys from this keys file, without accounts or usage (also $PDFSVC_KEYS_FILE)' },
  'database-url': {
    kind: 'text',
    value: 'url',
    env: 'PDFSVC_DATABASE_URL',
    help: 'accounts, keys and usage in this PostgreSQL database, shared by several servers (postgres://user:password@host/db)',
  },
  'data-dir': {
    kind: 'text',
    value: 'dir',
    env: 'PDFSVC_DATA_DIR',
    help: 'accounts, keys and usage in the embedded database here (default: $XDG_DATA_HOME/pdfsvc/db)',
  },
  'dashboard-url': { kind: 'text', value: 'url', env: 'PDFSVC_DASHBOARD_URL', help: 'base of the dashboard links printed at start-up' },
  dashboard: {
    kind: 'flag',
    negatable: true,
    help: 'with a database, do not serve the key dashboard at /dashboard (when one pdfsvc dashboard serves every region)',
  },
  https: { kind: 'flag', help: 'serve TLS (with --cert/--key, or a self-signed certificate)' },
  cert: { kind: 'text', value: 'file', help: 'TLS certificate (PEM)' },
  key: { kind: 'text', value: 'file', help: 'TLS private key (PEM)' },
  'max-upload-bytes': { kind: 'integer', value: 'n', default: String(100 * 1024 * 1024), help: 'largest request body accepted' },
  workers: { kind: 'integer', value: 'n', help: 'worker threads for PDF work (default: number of cores)' },
  'metrics-port': {
    kind: 'integer',
    value: 'port',
    min: 0,
    help: 'serve Prometheus metrics on GET /metrics at this port, on a listener of its own (default: none; 0 picks a free port)',
  },
  'metrics-host': { kind: 'text', value: 'host', default: '127.0.0.1', help: 'address of the metrics listener' },
  'metrics-key-labels': { kind: 'flag', help: 'label request counts with the key name (never the key)' },
  'rate-limit': {
    kind: 'text',
    value: 'limits',
    help: 'requests per key by plan, such as free=60/min,starter=600/min,business=6000/min (default: none); past it 429',
  },
  'max-memory': {
    kind: 'text',
    value: 'size',
    help: 'memory the requests in flight may hold together (2GiB, 512MiB); past it new ones get 503 (default: 80% of the container limit, else half the RAM)',
  },
  'worker-heap-mb': {
    kind: 'integer',
    value: 'n',
    help: 'most V8 heap one worker may use; past it that request alone gets 503 and the worker is replaced (default 1024)',
  },
  'max-queue': {
    kind: 'integer',
    value: 'n',
    min: 0,
    help: 'requests that may wait for a worker; past that, 503 with Retry-After (default: 16 per worker, at least 64)',
  },
  'request-timeout-ms': {
    kind: 'integer',
    value: 'n',
    default: '120000',
    help: 'longest a request may take, upload included; past it the work is stopped (408 or 503)',
  },
  'error-type-base': { kind: 'text', value: 'uri', help: 'base URI of problem types (default: <request origin>/v1/errors)' },
  'audit-log': {
    kind: 'text',
    value: 'destination',
    help: 'one JSON line per request (time, key id, account, action, status, bytes, pages; never names, values or contents) to stderr, file:PATH or database (the accounts database, table request_audit); required with --region us-hipaa',
  },
  'insecure-development': {
    kind: 'flag',
    help: 'with --region us-hipaa only: allow plain HTTP on loopback and a development key, for a development run without health information (announced at start-up)',
  },
} as const satisfies OptionMap;

/** Which account a key command works on (database). */
const account = { kind: 'text', value: 'name', help: 'the account, when several have a key of that name' } as const;

export const KEYS_OPTIONS = {
  create: {
    account: { ...account, help: 'the account the key belongs to (database)' },
    name: { kind: 'text', value: 'name', help: 'a name to tell the key apart (default: key-<id>)' },
    regions: { kind: 'text', value: 'list', help: "limit the key to some of the plan's regions, such as eu or us,eu (default: all of them)" },
    expires: { kind: 'text', value: 'when', help: 'the key stops working then: a duration from now (30d, 12h) or a date (2027-01-31)' },
    plan: {
      kind: 'choice',
      value: 'plan',
      values: PLANS,
      help: `${orList(PLANS)}: a keys file's key has it; in the database, without --account, the key goes to the account default-<plan> (made if missing)`,
    },
  },
  list: {
    account: { ...account, help: "only this account's keys" },
    all: { kind: 'flag', help: 'revoked keys too' },
    json: { kind: 'flag', help: 'print as JSON' },
  },
  rotate: {
    grace: { kind: 'text', value: 'duration', default: '24h', help: 'how long the old key keeps working (24h, 30m, 7d; 0 for none)' },
    account,
  },
  revoke: { account },
  rename: { account },
  'set-regions': { account },
  import: {
    'keys-file': { kind: 'text', value: 'path', help: 'the keys file to import (default: $PDFSVC_KEYS_FILE, else the user config directory)' },
    account: {
      kind: 'text',
      value: 'name',
      default: 'default',
      help: 'the account the keys go to, made if missing; a file that mixes plans gets one account per plan, NAME-<plan>',
    },
    email: { kind: 'text', value: 'address', help: 'the e-mail address of an account made for the import (default: <account>@localhost)' },
  },
} as const satisfies Record<string, OptionMap>;

/** Where password links point when nothing says where: the dashboard of a `pdfsvc serve` started with no options. */
export const DEFAULT_DASHBOARD_URL = 'http://127.0.0.1:8080/dashboard';

/** The options of a command that prints a dashboard password link. */
const passwordLink = {
  'dashboard-url': {
    kind: 'text',
    value: 'url',
    env: 'PDFSVC_DASHBOARD_URL',
    defaultHelp: `that of the pdfsvc serve holding the embedded database, else ${DEFAULT_DASHBOARD_URL}`,
    help: 'the dashboard the link points to',
  },
  'link-ttl': { kind: 'text', value: 'duration', default: '24h', help: 'how long the link works' },
} as const;

export const ACCOUNTS_OPTIONS = {
  create: {
    email: { kind: 'text', value: 'address', required: true, help: "the owner's e-mail address (the dashboard sign-in)" },
    plan: { kind: 'text', value: 'plan', required: true, help: orList(PLANS) },
    ...passwordLink,
  },
  list: { json: { kind: 'flag', help: 'print as JSON' } },
  'set-plan': {},
  suspend: {},
  resume: {},
  delete: {},
  link: passwordLink,
} as const satisfies Record<string, OptionMap>;
