import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.ts';
import '../modules/users/schema.ts';
import '../modules/groups/schema.ts';
import '../modules/projects/schema.ts';
import '../modules/members/schema.ts';
import '../modules/milestones/schema.ts';
import '../modules/labels/schema.ts';
import '../modules/meta/schema.ts';
import '../modules/commits/schema.ts';
import '../modules/repository-files/schema.ts';
import '../modules/branches/schema.ts';
import '../modules/tags/schema.ts';
import '../modules/releases/schema.ts';
import '../modules/release-links/schema.ts';
import '../modules/archives/schema.ts';
import '../modules/job-tokens/schema.ts';

export const schema = lexicographicSortSchema(builder.toSchema());
