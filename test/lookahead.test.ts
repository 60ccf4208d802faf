import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Lookahead } from '../src/graphql/lookahead.ts';

/** The Lookahead of the document's first top-level field, as its resolver would see it. */
function lookahead(source: string, variableValues: Record<string, unknown> = {}) {
  const document = parse(source);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const field = operation.selectionSet.selections[0] as FieldNode;
  return Lookahead.of({ fieldNodes: [field], fragments, variableValues } as unknown as GraphQLResolveInfo);
}

describe('Lookahead', () => {
  it('sees fields by name through aliases, fragments, inline fragments, and both shapes of a connection', () => {
    const selected = lookahead(`
      query { releases { nodes { tag: tagName ...Rest } edges { node { ... on Release { author { username } } } } } }
      fragment Rest on Release { assets { links { nodes { name } } } }`).nodes();
    expect(['tagName', 'assets', 'author'].map((name) => selected.has(name))).toEqual([true, true, true]);
    // The alias is not the field's name; a field not selected is not seen.
    expect(selected.has('tag')).toBe(false);
    expect(selected.has('milestones')).toBe(false);
    expect(selected.child('assets').has('links')).toBe(true);
    expect(selected.child('assets').has('count')).toBe(false);
    expect(selected.child('assets').child('links').nodes().has('name')).toBe(true);
    // Below a field not selected, nothing is.
    expect(selected.child('milestones').nodes().has('title')).toBe(false);
  });

  it('leaves out what @skip and @include leave out, with literals and with variables', () => {
    const source = `query($simple: Boolean!, $html: Boolean!) { releases { nodes {
      name
      descriptionHtml @include(if: $html)
      ...Details @skip(if: $simple)
      evidences @skip(if: false)
      commit @include(if: false)
    } } }
    fragment Details on Release { author { username } }`;
    const plain = lookahead(source, { simple: true, html: false }).nodes();
    expect(['name', 'descriptionHtml', 'author', 'evidences', 'commit'].map((name) => plain.has(name))).toEqual([true, false, false, true, false]);
    const full = lookahead(source, { simple: false, html: true }).nodes();
    expect(['name', 'descriptionHtml', 'author', 'evidences', 'commit'].map((name) => full.has(name))).toEqual([true, true, true, true, false]);
  });
});
