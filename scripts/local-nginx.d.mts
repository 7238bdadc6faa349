// Types for local-nginx.mjs (test/server/scale-out.test.ts imports it).
export declare function rewrite(
  file: string,
  text: string,
  pattern: RegExp,
  count: number,
  what: string,
  replace: (index: number, ...groups: Array<string | undefined>) => string,
): string;
export declare function localNginxConf(file: string, options: { dir: string; port: number; upstreams: number[]; cert: string; key: string }): string;
