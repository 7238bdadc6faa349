// Types for multi-region.mjs (test/deploy/multi-region.test.ts imports it).
import type { ChildProcess } from 'node:child_process';

export declare const NGINX: string;

export interface ServerSpec {
  name: 'global-1' | 'global-2' | 'eu' | 'us-hipaa';
  region: 'global' | 'eu' | 'us-hipaa';
}
export declare const SERVERS: ServerSpec[];

export interface Process {
  name: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  readonly running: boolean;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Deployment {
  dir: string;
  databaseUrl: string;
  /** With its own cluster, PostgreSQL's log; gone after stop(). */
  postgresLog?: string;
  env: Record<string, string>;
  certificate: string;
  /** The dashboard's base, ending in /dashboard. */
  dashboard: string;
  endpoints: { global: string; eu: string; 'us-hipaa': string };
  servers: Record<ServerSpec['name'], ServerSpec & { url: string; process: Process }>;
  nginx: Process;
  nginxAccessLog: string;
  processes: Process[];
  stop(): Promise<void>;
}

export declare function globalNginxConf(options: { dir: string; port: number; upstreams: number[]; cert: string; key: string }): string;
export declare function startMultiRegion(options?: {
  databaseUrl?: string;
  logStatements?: boolean;
  workers?: number;
  startTimeoutMs?: number;
}): Promise<Deployment>;
export declare function pdfsvc(deployment: Deployment, args: string[]): string;
