import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run longest, longest first, then the ones that spend seconds waiting on processes
 * they start (servers, workers, probes). Vitest orders by the durations of the previous run, which a
 * clean clone (CI) does not have: it then runs bigger files first, so the fuzz file (small, ~15 s)
 * could start last, and the process tests (small files too) ran at the end, one file per worker
 * for the last ~5 s of the run. Early, their waiting overlaps the other workers' work.
 */
const LONGEST = [
  'fuzz',
  'hardening',
  'scale-out',
  'rest-jit',
  'git-http-push',
  'worker-process',
  'repository-files',
  'graphiql-lazy',
  'start-script',
  'bootstrap-cli',
  'adapter-fixes',
  'build-script',
];

const rank = (file: TestSpecification) => {
  const index = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}.test.ts`));
  return index < 0 ? LONGEST.length : index;
};

/** Vitest's order, with the longest files moved to the front. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
