// Our schema beside GitLab's GraphQL reference, type by type: every type we serve is in the tables of
// test/gitlab-reference/ (written from the reference, one file per area; a type whose fields come
// from several areas, like Query or Project, has a part in each) or says why it is ours alone;
// every field, argument, input field, enum value and union member matches GitLab's name and type
// (nullability included), or the table keeps the difference with a reason.
import { readdirSync } from 'node:fs';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/kernel.ts';
import type { ReferenceField, ReferenceType } from './gitlab-reference/types.ts';

const BUILT_IN = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);
const tables = new Map<string, ReferenceType>();

/** One type's parts from several areas' tables, as one. */
function merge(into: ReferenceType | undefined, part: ReferenceType): ReferenceType {
  if (!into) return part;
  return {
    name: part.name,
    fields: { ...into.fields, ...part.fields },
    values: into.values ?? part.values,
    members: into.members ?? part.members,
    kept: { ...into.kept, ...part.kept },
    notGitLab: into.notGitLab ?? part.notGitLab,
  };
}

beforeAll(async () => {
  const dir = new URL('./gitlab-reference/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'types.ts');
  for (const file of files.sort()) {
    // `sharedParts`: an area's fields of the types every area adds to (Query, Mutation, Project, …).
    const mod = (await import(new URL(file, dir).href)) as { types: ReferenceType[]; sharedParts?: ReferenceType[] };
    for (const part of [...mod.types, ...(mod.sharedParts ?? [])]) tables.set(part.name, merge(tables.get(part.name), part));
  }
});

const asField = (f: string | ReferenceField): ReferenceField => (typeof f === 'string' ? { type: f } : f);

/** Differences between a type's fields (object, interface or input) and the reference's. */
function fieldDifferences(ref: ReferenceType, fields: Record<string, GraphQLField<unknown, unknown> | GraphQLInputField>): string[] {
  const out: string[] = [];
  const kept = ref.kept ?? {};
  const refFields = ref.fields ?? {};
  for (const [name, field] of Object.entries(fields)) {
    const facts = refFields[name];
    if (!facts) {
      if (!(name in kept)) out.push(`${ref.name}.${name}: ours, not in the reference table`);
      continue;
    }
    const { type, args = {} } = asField(facts);
    if (String(field.type) !== type && !(name in kept)) out.push(`${ref.name}.${name}: ${field.type}, GitLab ${type}`);
    const ours = 'args' in field ? (field.args as readonly GraphQLArgument[]) : [];
    for (const arg of ours) {
      const key = `${name}.${arg.name}`;
      if (key in kept) continue;
      if (!(arg.name in args)) out.push(`${ref.name}.${key}: our argument, not in the reference table`);
      else if (String(arg.type) !== args[arg.name]) out.push(`${ref.name}.${key}: ${arg.type}, GitLab ${args[arg.name]}`);
    }
    for (const arg of Object.keys(args))
      if (!ours.some((a) => a.name === arg) && !(`${name}.${arg}` in kept)) out.push(`${ref.name}.${name}.${arg}: GitLab's argument, missing`);
  }
  for (const name of Object.keys(refFields)) if (!(name in fields) && !(name in kept)) out.push(`${ref.name}.${name}: GitLab's field, missing`);
  return out;
}

function setDifferences(ref: ReferenceType, ours: string[], theirs: string[], what: string): string[] {
  const kept = ref.kept ?? {};
  return [
    ...ours.filter((v) => !theirs.includes(v) && !(v in kept)).map((v) => `${ref.name}.${v}: our ${what}, not GitLab's`),
    ...theirs.filter((v) => !ours.includes(v) && !(v in kept)).map((v) => `${ref.name}.${v}: GitLab's ${what}, missing`),
  ];
}

function differences(ref: ReferenceType, type: GraphQLNamedType | undefined): string[] {
  if (!type) return [`${ref.name}: in the reference table, not in the schema`];
  if (ref.notGitLab) return [];
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) return fieldDifferences(ref, type.getFields());
  if (isEnumType(type))
    return setDifferences(
      ref,
      type.getValues().map((v) => v.name),
      ref.values ?? [],
      'enum value',
    );
  if (isUnionType(type))
    return setDifferences(
      ref,
      type.getTypes().map((t) => t.name),
      ref.members ?? [],
      'union member',
    );
  return [];
}

describe("the schema beside GitLab's GraphQL reference", () => {
  it('has no difference from the reference tables that is not kept with a reason', () => {
    const found = [...tables.values()].flatMap((ref) => differences(ref, schema.getType(ref.name)));
    expect(found).toEqual([]);
  });

  it('covers every type the schema serves', () => {
    const served = Object.keys(schema.getTypeMap()).filter((name) => !name.startsWith('__') && !BUILT_IN.has(name));
    expect(served.filter((name) => !tables.has(name))).toEqual([]);
  });
});
