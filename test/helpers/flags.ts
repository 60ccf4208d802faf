import { fileURLToPath } from 'node:url';
import { DEFAULT_DEFINITIONS_DIR } from '../../src/flags/definitions.ts';

/** Test-only flag and experiment definitions (test/fixtures/feature_flags). */
export const FIXTURE_FLAGS = fileURLToPath(new URL('../fixtures/feature_flags', import.meta.url));

/** The product's definitions plus the fixtures. */
export const FLAG_DIRS_WITH_FIXTURES = [DEFAULT_DEFINITIONS_DIR, FIXTURE_FLAGS];
