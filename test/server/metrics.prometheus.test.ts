/**
 * A real Prometheus (Debian's /usr/bin/prometheus) scraping a running
 * `pdfsvc serve --metrics-port 0` every second: what an operator's
 * Prometheus stores is what the server means. Requests by action, status and
 * region with the right counts, the latency histogram, pages processed,
 * process metrics, and no API key anywhere in any series.
 *
 * Needs prometheus: see test/helpers/tools.ts for when its absence skips and
 * when it fails.
 */
import { execa, type ResultPromise } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, pageCount } from '../helpers/pdf-tools.js';
import { haveTool } from '../helpers/tools.js';
import { freePort, postAction, send, serve, tempDir, waitFor, type Served } from './spawn.js';

const PROMETHEUS = process.env.PDFSVC_PROMETHEUS ?? '/usr/bin/prometheus';
const havePrometheus = haveTool(PROMETHEUS, 'the Prometheus scrape tests', 'apt-get install -y prometheus, or set PDFSVC_PROMETHEUS');

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe.skipIf(!havePrometheus)('a real Prometheus scraping --metrics-port', { timeout: 40_000 }, () => {
  let served: Served;
  let prometheus: ResultPromise | undefined;
  let api: string;
  const file = fixture('pages-3.pdf');

  /** An instant query through Prometheus's HTTP API. */
  async function query(promql: string): Promise<Sample[]> {
    const reply = await send(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`, { timeoutMs: 5000 });
    const parsed = JSON.parse(reply.body.toString('utf8')) as { status: string; data: { result: Sample[] } };
    if (parsed.status !== 'success') throw new Error(`query ${promql} failed: ${reply.body.toString('utf8')}`);
    return parsed.data.result;
  }
  const valueOf = (samples: Sample[], labels: Record<string, string> = {}) =>
    samples.filter((s) => Object.entries(labels).every(([k, v]) => s.metric[k] === v)).map((s) => Number(s.value[1]));

  beforeAll(async () => {
    served = await serve({ args: ['--metrics-port', '0', '--workers', '1'] });
    // The line after "listening", which serve() waits for: it may arrive a moment later.
    const metricsUrl = await waitFor(() => /Prometheus metrics on (http:\/\/\S+\/metrics)/.exec(served.stdout())?.[1], 5000, 'the metrics URL');
    const dir = tempDir('pdfsvc-prometheus-');
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: pdfsvc',
        '    scrape_interval: 1s',
        '    scrape_timeout: 1s',
        `    static_configs: [{ targets: ['${new URL(metricsUrl).host}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = execa(
      PROMETHEUS,
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      {
        reject: false,
        stdin: 'ignore',
      },
    );
    let exited = false;
    void prometheus.then(() => (exited = true));
    await waitFor(
      async () => {
        if (exited) throw new Error(`prometheus exited at start-up:\n${String((await prometheus!).stderr)}`);
        return (await send(`${api}/-/ready`, { timeoutMs: 1000 }).catch(() => undefined))?.status === 200;
      },
      15_000,
      `prometheus on ${api} to be ready`,
    );
    for (let i = 0; i < 2; i++) expect((await postAction(served, 'rotate_pages', { file, angle: '90' })).status).toBe(200);
    expect((await postAction(served, 'rotate_pages', { file, angle: '45' })).status).toBe(400);
    // Until a scrape after the last request has landed (one a second; the waits above bound it).
    await waitFor(
      async () => {
        const samples = await query('pdfsvc_requests_total{action="rotate_pages"}');
        return valueOf(samples, { status: '200' })[0] === 2 && valueOf(samples, { status: '400' })[0] === 1;
      },
      30_000,
      'prometheus to store the requests',
    );
  }, 40_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await prometheus;
    await served?.stop();
  });

  it('stores requests by action, status and region, and nothing else as labels', async () => {
    const samples = await query('pdfsvc_requests_total');
    expect(samples).toHaveLength(2);
    for (const sample of samples) {
      expect(Object.keys(sample.metric).sort()).toEqual(['__name__', 'action', 'instance', 'job', 'region', 'status']);
      expect(sample.metric).toMatchObject({ action: 'rotate_pages', region: 'global', job: 'pdfsvc' });
    }
    expect(valueOf(await query('up{job="pdfsvc"}'))).toEqual([1]);
  });

  it('has the latency histogram for rotate_pages, every request in its +Inf bucket', async () => {
    const buckets = await query('pdfsvc_request_duration_seconds_bucket{action="rotate_pages"}');
    expect(buckets.length).toBeGreaterThan(5);
    expect(valueOf(buckets, { le: '+Inf' })).toEqual([3]);
    expect(valueOf(await query('pdfsvc_request_duration_seconds_count{action="rotate_pages"}'))).toEqual([3]);
    // A quantile over it works as a dashboard would ask for one.
    const p99 = valueOf(await query('histogram_quantile(0.99, sum by (le) (pdfsvc_request_duration_seconds_bucket{action="rotate_pages"}))'));
    expect(p99[0]).toBeGreaterThan(0);
  });

  it("counts the input's pages of each answered request: the fixture's page count, twice", async () => {
    expect(valueOf(await query('pdfsvc_pages_processed_total{action="rotate_pages"}'))).toEqual([2 * (await pageCount(file))]);
  });

  it('has the process and pool metrics', async () => {
    expect(valueOf(await query('process_resident_memory_bytes{job="pdfsvc"}'))[0]).toBeGreaterThan(0);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'pdfsvc_workers_busy',
      'pdfsvc_queue_length',
      'pdfsvc_uploads_in_flight',
      'pdfsvc_memory_budget_bytes',
    ]) {
      expect(await query(`${name}{job="pdfsvc"}`), name).toHaveLength(1);
    }
  });

  it('holds no API key in any series name or label value', async () => {
    const reply = await send(`${api}/api/v1/series?${new URLSearchParams({ 'match[]': '{job="pdfsvc"}' })}`, { timeoutMs: 5000 });
    const series = JSON.parse(reply.body.toString('utf8')) as { data: Array<Record<string, string>> };
    expect(series.data.length).toBeGreaterThan(20);
    const text = JSON.stringify(series.data);
    expect(text).not.toContain(served.key);
    expect(text).not.toContain('key_name');
  });
});
