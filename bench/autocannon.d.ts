// autocannon ships no types; only the part the benchmarks use.
declare module 'autocannon' {
  type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (req: Request) => Request };
  type Options = {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    requests?: Request[];
  };
  type Result = { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  export default function autocannon(options: Options): Promise<Result>;
}
