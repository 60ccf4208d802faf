// autocannon ships no types; only the part the benchmarks use.
declare module 'autocannon' {
  type Options = { url: string; method?: string; headers?: Record<string, string>; body?: string; connections?: number; duration?: number };
  type Result = { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
  export default function autocannon(options: Options): Promise<Result>;
}
