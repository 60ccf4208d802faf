import type { FieldMap } from '@pothos/core';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Namespace } from '../../generated/prisma/client.ts';
import { builder } from '../../graphql/builder.ts';
import { GroupRef } from '../groups/index.ts';
import { ProjectRef } from '../projects/index.ts';
import type { ParentKind } from './parent.ts';

type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** What a field defined with `parentFields` receives: a Project or a Group row (`parentOf` makes it a Parent). */
export type ParentRow = ProjectWithNamespace | Namespace;

export type ParentFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, ParentRow>;

/**
 * Fields that Project and Group both have (members, milestones, labels, …), defined once. `define`
 * runs for each type, with its kind for the fields GitLab names per type (`projectMembers` /
 * `groupMembers`); resolvers turn the row into the parent with `parentOf`.
 */
export function parentFields(define: (t: ParentFieldBuilder, kind: ParentKind) => FieldMap) {
  // A resolver written for either row serves both types; the cast only widens the parent type Pothos infers from.
  builder.objectFields(ProjectRef, (t) => define(t as unknown as ParentFieldBuilder, 'project'));
  builder.objectFields(GroupRef, (t) => define(t as unknown as ParentFieldBuilder, 'group'));
}

export { parentInputFields, projectInputFields } from '../namespaces/input-fields.ts';
