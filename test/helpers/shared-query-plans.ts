import { QueryCompiler } from '@prisma/client/runtime/query_compiler_small_bg.postgresql.mjs';

/**
 * One query-plan cache per test worker instead of one per Prisma client.
 *
 * Prisma compiles each query shape into a plan (WebAssembly) once per client and caches it in
 * that client. A server process has one client; a test worker builds one per test app, about
 * 25 per worker in a run, and compiled the same shapes again for each: 3,175 compilations of
 * 1,337 distinct requests took 5.0 s of a run's CPU, 2.9 s once shared. A plan depends only on
 * the request, the schema and the adapter's connection facts, and every client here is built the
 * same way (`createDb`: the generated client over `PrismaPg(pool)`), so their plans are
 * interchangeable.
 * Prisma's own cache reuses a plan object for every execution; sharing it between clients is
 * the same use. Prisma is pinned to an exact version; if the method moves, the suite runs
 * unshared, only slower.
 */
const SHARED = Symbol.for('forgegate.test.sharedQueryPlans');
const MAX_PLANS = 10_000;

type Compile = (this: unknown, request: string) => unknown;
const prototype = QueryCompiler.prototype as unknown as Record<string | symbol, unknown>;

if (!prototype[SHARED]) {
  prototype[SHARED] = true;
  for (const name of ['compile', 'compileBatch']) {
    const compile = prototype[name] as Compile | undefined;
    if (typeof compile !== 'function') continue;
    const plans = new Map<string, unknown>();
    prototype[name] = function shared(this: unknown, request: string) {
      let plan = plans.get(request);
      if (plan === undefined) {
        plan = compile.call(this, request);
        if (plans.size >= MAX_PLANS) plans.clear();
        plans.set(request, plan);
      }
      return plan;
    };
  }
}
