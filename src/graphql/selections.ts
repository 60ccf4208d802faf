import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

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
 * selections (fields, at every level) it holds and how deep its fields nest. A few hundred bytes
 * of fragments spreading each other twice expand to millions of selections; these numbers bound
 * every walk over the operation, and are measured without expanding anything (each fragment is
 * measured once), so a document is refused before any such walk.
 */
export type Shape = { selections: number; depth: number };

const fragmentsOf = (document: DocumentNode) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
};

/** The shape of every operation of a document, by operation node. */
export function measureOperations(document: DocumentNode): Map<OperationDefinitionNode, Shape> {
  const fragments = fragmentsOf(document);
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
    for (const selection of set.selections) {
      const inner =
        selection.kind === Kind.FIELD
          ? fieldShape(selection)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? setShape(selection.selectionSet)
            : fragmentShape(selection.name.value);
      selections = Math.min(selections + inner.selections, Number.MAX_SAFE_INTEGER);
      depth = Math.max(depth, inner.depth);
    }
    return { selections, depth };
  };
  const fieldShape = (field: FieldNode): Shape => {
    const inner = field.selectionSet ? setShape(field.selectionSet) : EMPTY;
    return { selections: inner.selections + 1, depth: inner.depth + 1 };
  };
  const shapes = new Map<OperationDefinitionNode, Shape>();
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) shapes.set(d, setShape(d.selectionSet));
  return shapes;
}

const EMPTY: Shape = { selections: 0, depth: 0 };

/**
 * Fields whose recurring is the shape of a connection or of a type reference, not a cycle
 * (GitLab's RecursionAnalyzer ignores the same).
 */
const NOT_RECURSION = new Set(['node', 'edges', 'nodes', 'ofType']);

/**
 * How often each field name (of fields with selections) recurs down one branch of an operation
 * at most, fragments expanded: `group { projects { nodes { group ...` unrolls a cycle of the
 * schema. It visits every selection of the expanded operation: only for an operation whose
 * measured size is bounded.
 */
export function recurringFields(document: DocumentNode, operation: OperationDefinitionNode): Map<string, number> {
  const fragments = fragmentsOf(document);
  const onBranch = new Map<string, number>();
  const most = new Map<string, number>();
  const spreading = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) spread(selection.name.value);
      else if (selection.selectionSet) field(selection.name.value, selection.selectionSet);
    }
  };
  const spread = (name: string) => {
    const fragment = fragments.get(name);
    // A fragment that spreads itself is refused by validation; here it ends the branch.
    if (!fragment || spreading.has(name)) return;
    spreading.add(name);
    visit(fragment.selectionSet);
    spreading.delete(name);
  };
  const field = (name: string, set: SelectionSetNode) => {
    if (NOT_RECURSION.has(name)) return visit(set);
    const times = (onBranch.get(name) ?? 0) + 1;
    onBranch.set(name, times);
    most.set(name, Math.max(times, most.get(name) ?? 0));
    visit(set);
    onBranch.set(name, times - 1);
  };
  visit(operation.selectionSet);
  return most;
}
