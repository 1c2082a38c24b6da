// Types of scripts/postgres-cluster.mjs for the TypeScript tests that use it.
export interface PostgresCluster {
  url: string;
  port: number;
  dir: string;
  halt(mode?: 'fast' | 'immediate'): void;
  restart(): void;
  stop(): void;
}
export const FAST_UNSAFE_SETTINGS: Record<string, string>;
export function findPostgresBin(): string | undefined;
export function freePort(): Promise<number>;
export function startPostgresCluster(options?: {
  bin?: string;
  port?: number;
  settings?: Record<string, string>;
}): Promise<PostgresCluster>;
