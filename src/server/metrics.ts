/**
 * Prometheus metrics (prom-client), served on a listener of their own
 * (`--metrics-port`, loopback unless `--metrics-host` says otherwise), so
 * that the API's port never exposes them. No key secret is ever a label; key
 * names become one only with `--metrics-key-labels`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestLogEntry } from './app.js';
import type { BudgetStatus } from './memory-budget.js';
import type { PoolStatus } from './pool.js';

export interface MetricsSources {
  pool: () => PoolStatus;
  inFlight: () => number;
  uploadsInFlight: () => number;
  memory: () => BudgetStatus;
  keyLabels: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<string>;
  private readonly duration: Histogram<string>;
  private readonly bytesIn: Counter<string>;
  private readonly bytesOut: Counter<string>;
  private readonly pages: Counter<string>;
  private readonly keyLabels: boolean;

  constructor(sources: MetricsSources) {
    this.keyLabels = sources.keyLabels;
    const labels = ['action', 'status', 'region', ...(this.keyLabels ? ['key_name'] : [])];
    const registers = [this.registry];
    // Process memory, CPU, event-loop lag (nodejs_eventloop_lag_seconds), heap.
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'pdfsvc_requests_total',
      help: 'Action requests answered, by action, status and region.',
      labelNames: labels,
      registers,
    });
    this.duration = new Histogram({
      name: 'pdfsvc_request_duration_seconds',
      help: 'Time from the request to its answer, upload included, by action.',
      labelNames: ['action'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.bytesIn = new Counter({ name: 'pdfsvc_bytes_in_total', help: 'Request body bytes read, by action.', labelNames: ['action'], registers });
    this.bytesOut = new Counter({ name: 'pdfsvc_bytes_out_total', help: 'Answer body bytes sent, by action.', labelNames: ['action'], registers });
    // Input pages, not output pages: the work done (a split reads every page
    // whatever it writes), and what a merge of many documents is charged by.
    this.pages = new Counter({
      name: 'pdfsvc_pages_processed_total',
      help: 'Pages of the input documents of answered (200) action requests, by action.',
      labelNames: ['action'],
      registers,
    });
    const gauge = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value());
        },
      });
    gauge('pdfsvc_workers', 'Worker threads.', () => sources.pool().threads);
    gauge('pdfsvc_workers_busy', 'Worker threads working on a request.', () => sources.pool().busy);
    gauge('pdfsvc_queue_length', 'Requests waiting for a worker.', () => sources.pool().queued);
    gauge('pdfsvc_requests_in_flight', 'Action requests being handled, uploads included.', sources.inFlight);
    gauge('pdfsvc_uploads_in_flight', 'Action requests whose body is still arriving.', sources.uploadsInFlight);
    gauge('pdfsvc_memory_budget_bytes', 'The memory budget (--max-memory).', () => sources.memory().max_bytes);
    gauge('pdfsvc_memory_budget_in_use_bytes', 'Memory reserved by the requests in flight.', () => sources.memory().in_use_bytes);
    gauge('pdfsvc_memory_budget_refused', 'Requests refused because they would have passed the memory budget, since start.', () => sources.memory().refused);
  }

  /** Counts one answered request (from the request log entry: never contents or keys). */
  observe(entry: RequestLogEntry): void {
    // The action the request was routed to, never a label from the path: anyone may ask for
    // POST /v1/<anything> (its 404 comes before the key check), and a series per path would grow
    // this process's memory and every scrape without bound.
    const { action } = entry;
    if (!action) return;
    const labels: Record<string, string> = { action, status: String(entry.status), region: entry.region };
    if (this.keyLabels) labels.key_name = entry.key_name ?? '';
    this.requests.inc(labels);
    this.duration.observe({ action }, entry.duration_ms / 1000);
    this.bytesIn.inc({ action }, entry.bytes_in);
    this.bytesOut.inc({ action }, entry.bytes_out);
    if (entry.pages !== undefined) this.pages.inc({ action }, entry.pages);
  }

  /**
   * The listener for GET /metrics; resolves with its port once it listens.
   * With `tls`, it serves HTTPS with that certificate, and `headers` go on
   * every answer (the us-hipaa region: TLS on every listener, and HSTS).
   */
  listen(host: string, port: number, tls?: { cert: string; key: string; headers: Record<string, string> }): Promise<{ server: Server; port: number }> {
    const handler = async (req: IncomingMessage, res: ServerResponse) => {
      if (tls) for (const [name, value] of Object.entries(tls.headers)) res.setHeader(name, value);
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': this.registry.contentType }).end(await this.registry.metrics());
    };
    const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, handler) : createServer(handler);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        const address = server.address();
        resolve({ server, port: typeof address === 'object' && address ? address.port : port });
      });
    });
  }
}
