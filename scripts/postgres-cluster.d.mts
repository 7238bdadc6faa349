// Types for postgres-cluster.mjs (test/helpers/postgres.ts imports it).
export declare function postgresBin(): string | undefined;
export declare function startCluster(options?: { database?: string; logStatements?: boolean }): Promise<{ url: string; log: string; stop(): void }>;
