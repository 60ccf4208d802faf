// The part of Prisma's WebAssembly query compiler that shared-query-plans.ts wraps (the module ships no types).
declare module '@prisma/client/runtime/query_compiler_small_bg.postgresql.mjs' {
  export class QueryCompiler {
    compile(request: string): unknown;
    compileBatch(request: string): unknown;
  }
}
