/**
 * Remote mode (`pdfsvc --server URL rotate …`): the action goes to a pdfsvc
 * server (or any server implementing /v1/) through the HTTP client, and its
 * answer is written exactly where local work would write it. Nothing here
 * loads the PDF library.
 *
 * The API key comes from `--api-key-file` or PDFSVC_API_KEY, never from an
 * argument: arguments are visible in the process list. It is never printed.
 */
import { readFileSync } from 'node:fs';
import { actions } from '../actions/index.js';
import type { AnyAction, NamedDocument } from '../core/action.js';
import { ValidationError } from '../core/errors.js';
import type { RawValues } from '../core/fields.js';
import { createClient, PdfsvcHttpError, type PdfsvcClient } from '../client/index.js';
import { RemoteFailure, RemoteValidationError } from './failure.js';
import { describeFsError } from './io.js';
import { nodeFetch } from './node-fetch.js';

/** The global options of remote mode. */
export interface RemoteSettings {
  server: string;
  apiKeyFile?: string;
  cacert?: string;
}

/** What an action made, in the shape local work gives it (core/run.ts ActionOutput). */
export type Produced = { output: 'document'; data: Uint8Array } | { output: 'documents'; documents: Array<{ name: string; data: Uint8Array }> };

export interface Remote {
  /** Sends the action with these values; failures are thrown as the CLI reports them. */
  run(action: AnyAction, raw: RawValues): Promise<Produced>;
  close(): void;
}

export function connect(settings: RemoteSettings): Remote {
  let url: URL;
  try {
    url = new URL(settings.server);
  } catch {
    throw ValidationError.field('server', `${JSON.stringify(settings.server)} is not a URL; give the server's base URL, such as https://pdf.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw ValidationError.field('server', `must be an http:// or https:// URL; got ${JSON.stringify(settings.server)}`);
  const apiKey = readApiKey(settings.apiKeyFile);
  const ca = settings.cacert === undefined ? undefined : readText('cacert', settings.cacert);
  const transport = nodeFetch({ ca });
  const client: PdfsvcClient = createClient({ baseUrl: settings.server, apiKey, fetch: transport });
  return {
    async run(action, raw) {
      try {
        const answer = await client.call(action.name, raw);
        return answer instanceof Uint8Array
          ? { output: 'document', data: answer }
          : { output: 'documents', documents: (answer as NamedDocument[]).map(({ name, bytes }) => ({ name, data: bytes })) };
      } catch (err) {
        throw failureOf(err, settings, apiKey !== undefined, action);
      }
    },
    close: () => transport.close(),
  };
}

function readApiKey(file: string | undefined): string | undefined {
  if (file !== undefined) {
    const key = readText('api_key_file', file).split(/\r?\n/)[0].trim();
    if (key === '') throw ValidationError.field('api_key_file', `${JSON.stringify(file)} is empty; its first line must be the API key`);
    return key;
  }
  return process.env.PDFSVC_API_KEY?.trim() || undefined;
}

function readText(field: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw ValidationError.field(field, `cannot read ${JSON.stringify(path)}: ${describeFsError(err)}`);
  }
}

/** A failed call as the command line reports it: the message says what to do, the exit status matches local work. */
function failureOf(err: unknown, settings: RemoteSettings, keyGiven: boolean, action: AnyAction): Error {
  if (!(err instanceof PdfsvcHttpError)) {
    // fetch failed: no answer at all (refused, DNS, TLS).
    const cause = (err as Error)?.message ?? String(err);
    const tls = /certificate|self[- ]signed|CERT_|unable to verify/i.test(cause)
      ? '; if the server uses a private certificate authority, give its certificate with --cacert FILE'
      : '';
    return new RemoteFailure(`cannot reach the server at ${settings.server}: ${cause}${tls}`, 1, {
      type: 'about:blank',
      title: 'The server could not be reached.',
      status: 502,
      detail: cause,
    });
  }
  const problem = err.problem;
  const detail = problem.detail ? `: ${problem.detail}` : '';
  switch (err.status) {
    case 400:
      return Object.keys(err.errors).length > 0
        ? new RemoteValidationError(problem, [...actions.map((a) => a.name), ...Object.keys(action.fields)])
        : new RemoteFailure(`the server refused the input${detail}`, 2, problem);
    case 401:
      return new RemoteFailure(
        keyGiven
          ? 'the server does not accept this API key (unknown, revoked or expired); give a valid one with --api-key-file FILE or PDFSVC_API_KEY'
          : 'the server needs an API key: give one with --api-key-file FILE (its first line) or PDFSVC_API_KEY',
        1,
        problem,
      );
    case 403:
      return new RemoteFailure(
        // The detail says why (a suspended account, the plan, the key's own region limit): only the server knows which.
        `the server (region ${err.headers.get('x-region') ?? 'not given'}) does not allow this API key${detail || ': its plan or its region limit excludes this region, or its account is suspended'}`,
        1,
        problem,
      );
    case 406:
      return new RemoteFailure(
        `the server answered 406 Not Acceptable: it offers neither multipart/mixed nor application/json for this split${detail}; check that --server points at a server of the /v1/ API, or work locally without --server`,
        1,
        problem,
      );
    case 413:
      return new RemoteFailure(`the upload is larger than the server accepts${detail}; send a smaller document, or work locally without --server`, 2, problem);
    case 503:
      return new RemoteFailure(`the server is busy and stayed so through the retries${detail}; try again later`, 1, problem);
    default:
      return new RemoteFailure(`the server answered ${err.status} ${problem.title}${detail}`, 1, problem);
  }
}
