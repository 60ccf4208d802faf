import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type NamedTypeNode, type OperationDefinitionNode, type SelectionNode, type SelectionSetNode } from 'graphql';

/**
 * Fields visited by the walks over documents (the operation checks, lookahead), process-wide:
 * tests check that a fragment spread repeated in one selection set is walked once.
 */
export const selectionVisits = { fields: 0 };

type Collect = {
  fragment: (name: string) => FragmentDefinitionNode | undefined;
  included: (selection: SelectionNode) => boolean;
};

/**
 * The fields of one selection set with fragments inlined, as graphql-js collects them for
 * execution: a fragment spread is followed once per selection set, however often it is repeated
 * there (or reached through other fragments), so `{...F ...F}` costs what `{...F}` costs. `on` is
 * the innermost type condition a field sits under (none: the set's own type). `visited` is shared
 * by the field nodes whose selections merge into one (same response key).
 */
export function* collectFields(
  set: SelectionSetNode,
  collect: Collect,
  visited: Set<string> = new Set(),
  on?: NamedTypeNode,
): Generator<{ field: FieldNode; on: NamedTypeNode | undefined }> {
  for (const selection of set.selections) {
    if (!collect.included(selection)) continue;
    if (selection.kind === Kind.FIELD) {
      selectionVisits.fields += 1;
      yield { field: selection, on };
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      yield* collectFields(selection.selectionSet, collect, visited, selection.typeCondition ?? on);
      continue;
    }
    const name = selection.name.value;
    const fragment = visited.has(name) ? undefined : collect.fragment(name);
    if (!fragment) continue;
    visited.add(name);
    yield* collectFields(fragment.selectionSet, collect, visited, fragment.typeCondition);
  }
}

/**
 * What an operation would be if its fragments were pasted in where they are spread: how many
 * selections (fields, at every level), how deep its fields nest, and how often each field name
 * recurs down one branch (`fields { type { fields { type ...` through introspection's or the
 * schema's own cycles). A few hundred bytes of fragments spreading each other twice expand to
 * millions of selections; these numbers bound every walk over the operation, and are measured
 * without expanding anything (each fragment is measured once), so a document is refused before
 * any such walk.
 */
export type Shape = { selections: number; depth: number; recurring: ReadonlyMap<string, number> };

/**
 * Fields whose recurring is the shape of a connection or of a type reference, not a cycle
 * (GitLab's RecursionAnalyzer ignores the same).
 */
const NOT_RECURSION = new Set(['node', 'edges', 'nodes', 'ofType']);

/** The shape of every operation of a document, by operation node. */
export function measureOperations(document: DocumentNode): Map<OperationDefinitionNode, Shape> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measured = new Map<string, Shape>();
  const fragmentShape = (name: string): Shape => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // A spread of itself (refused by validation, later) or of nothing adds nothing here.
    measured.set(name, EMPTY);
    const shape = fragment ? setShape(fragment.selectionSet) : EMPTY;
    measured.set(name, shape);
    return shape;
  };
  const setShape = (set: SelectionSetNode): Shape => {
    let selections = 0;
    let depth = 0;
    const recurring = new Map<string, number>();
    for (const selection of set.selections) {
      const inner =
        selection.kind === Kind.FIELD ? fieldShape(selection) : selection.kind === Kind.INLINE_FRAGMENT ? setShape(selection.selectionSet) : fragmentShape(selection.name.value);
      selections = Math.min(selections + inner.selections, Number.MAX_SAFE_INTEGER);
      depth = Math.max(depth, inner.depth);
      for (const [name, times] of inner.recurring) recurring.set(name, Math.max(times, recurring.get(name) ?? 0));
    }
    return { selections, depth, recurring };
  };
  const fieldShape = (field: FieldNode): Shape => {
    if (!field.selectionSet) return LEAF;
    const inner = setShape(field.selectionSet);
    const name = field.name.value;
    const recurring = NOT_RECURSION.has(name) ? inner.recurring : new Map(inner.recurring).set(name, (inner.recurring.get(name) ?? 0) + 1);
    return { selections: inner.selections + 1, depth: inner.depth + 1, recurring };
  };
  const shapes = new Map<OperationDefinitionNode, Shape>();
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) shapes.set(d, setShape(d.selectionSet));
  return shapes;
}

const EMPTY: Shape = { selections: 0, depth: 0, recurring: new Map() };
const LEAF: Shape = { selections: 1, depth: 1, recurring: new Map() };
