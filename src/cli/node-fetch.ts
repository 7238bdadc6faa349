/**
 * The fetch the command line gives the HTTP client in remote mode, over
 * node:http and node:https: `--cacert` adds a trust anchor to Node's own
 * roots, which the global fetch (undici, inside Node) offers no way to do
 * at run time, and this needs no extra dependency. Certificates are always
 * verified. Connections are kept alive for batch mode's many requests.
 */
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';

export interface NodeFetch {
  (url: string, init: RequestInit): Promise<Response>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function nodeFetch(options: { ca?: string } = {}): NodeFetch {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true, ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}) }),
  };
  const fetchOverNode = async (url: string, init: RequestInit): Promise<Response> => {
    const target = new URL(url);
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) throw new TypeError(`unsupported protocol ${target.protocol}`);
    // Response serialises the FormData as multipart/form-data with its boundary.
    const encoded = new Response(init.body);
    const body = Buffer.from(await encoded.arrayBuffer());
    const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers).entries());
    const contentType = encoded.headers.get('content-type');
    if (contentType) headers['content-type'] = contentType;
    headers['content-length'] = String(body.byteLength);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      let answered = false;
      const request = (target.protocol === 'https:' ? https : http).request(target, { method: init.method ?? 'GET', headers, agent }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const answerHeaders = new Headers();
          for (let i = 0; i < response.rawHeaders.length; i += 2) answerHeaders.append(response.rawHeaders[i], response.rawHeaders[i + 1]);
          const status = response.statusCode ?? 500;
          resolve(
            new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
              status,
              statusText: response.statusMessage,
              headers: answerHeaders,
            }),
          );
        });
      });
      // A server may answer (413) and close before the upload ends: the answer counts, not the broken upload.
      request.on('error', (err) => {
        if (!answered) reject(err);
      });
      if (signal) {
        if (signal.aborted) request.destroy(signal.reason as Error);
        else signal.addEventListener('abort', () => request.destroy(signal.reason as Error), { once: true });
      }
      request.end(body);
    });
  };
  return Object.assign(fetchOverNode, {
    close() {
      for (const agent of Object.values(agents)) agent.destroy();
    },
  });
}
