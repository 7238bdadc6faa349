/**
 * A tiny HTTP server on 127.0.0.1 for client tests: it serves fixed files
 * (a page and dist/client.js, for the browser test: one origin, so no CORS)
 * and passes /v1/* on to a real pdfsvc server, after answering the first
 * `busyFirst` action requests with 503 + Retry-After (the retry tests).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface ProxyOptions {
  target: string;
  busyFirst?: number;
  retryAfter?: string;
  /** Replaces the Accept header passed on (a server that offers none of the client's packagings: 406). */
  accept?: string;
  files?: Record<string, { type: string; body: string | Uint8Array }>;
}

export interface Proxy {
  url: string;
  /** Arrival times (ms) of the action requests, answered 503 or passed on. */
  arrivals: number[];
  close(): Promise<void>;
}

const open = new Set<http.Server>();
afterAll(async () => {
  for (const server of open) server.closeAllConnections();
  await Promise.all([...open].map((server) => new Promise((resolve) => server.close(resolve))));
});

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  const arrivals: number[] = [];
  let busy = options.busyFirst ?? 0;
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '/';
    const file = options.files?.[path];
    if (file) {
      response.writeHead(200, { 'content-type': file.type }).end(file.body);
      return;
    }
    if (!path.startsWith('/v1/')) {
      response.writeHead(404).end();
      return;
    }
    arrivals.push(Date.now());
    if (busy > 0) {
      busy--;
      const body = JSON.stringify({ type: 'about:blank', title: 'Service unavailable.', status: 503, detail: 'busy (test proxy)' });
      response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': options.retryAfter ?? '1' }).end(body);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'accept', 'x-api-key']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (options.accept !== undefined) headers.accept = options.accept;
    const answer = await fetch(`${options.target}${path}`, {
      method: request.method,
      headers,
      body: request.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    const passed: Record<string, string> = {};
    for (const name of ['content-type', 'x-region', 'retry-after']) {
      const value = answer.headers.get(name);
      if (value !== null) passed[name] = value;
    }
    response.writeHead(answer.status, passed).end(Buffer.from(await answer.arrayBuffer()));
  });
  open.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: async () => {
      open.delete(server);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
