import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

type Scope = Pick<GraphQLResolveInfo, 'fragments' | 'variableValues'>;

/**
 * What a query selects below the field being resolved, for a list resolver to read its rows'
 * relations in one batch each before the fields below ask for them (GitLab's resolvers look ahead
 * the same way to preload). Fields are matched by name, whatever their aliases, through fragments
 * and inline fragments, without `@skip(if: true)` or `@include(if: false)` ones. Type conditions
 * are not checked: a fragment on another type can only make the answer "selected" where it is not,
 * which costs a read, never a field.
 */
export class Lookahead {
  private constructor(
    private readonly fields: readonly FieldNode[],
    private readonly scope: Scope,
  ) {}

  /** The selection below the field `info` resolves. */
  static of(info: GraphQLResolveInfo): Lookahead {
    return new Lookahead(info.fieldNodes, info);
  }

  /** The selections of the fields named `name` one level down, merged. */
  child(name: string): Lookahead {
    const found: FieldNode[] = [];
    for (const field of this.fields) if (field.selectionSet) this.collect(field.selectionSet, name, found);
    return new Lookahead(found, this.scope);
  }

  /** Whether a field named `name` is selected one level down. */
  has(name: string): boolean {
    return this.child(name).fields.length > 0;
  }

  /** A connection's nodes, whether read as `nodes` or as `edges { node }`. */
  nodes(): Lookahead {
    return new Lookahead([...this.child('nodes').fields, ...this.child('edges').child('node').fields], this.scope);
  }

  private collect(set: SelectionSetNode, name: string, found: FieldNode[]) {
    for (const selection of set.selections) {
      if (!this.included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name) found.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.collect(selection.selectionSet, name, found);
      } else {
        const fragment = this.scope.fragments[selection.name.value];
        if (fragment) this.collect(fragment.selectionSet, name, found);
      }
    }
  }

  private included(node: SelectionSetNode['selections'][number]) {
    if (!node.directives?.length) return true;
    const skip = getDirectiveValues(GraphQLSkipDirective, node, this.scope.variableValues);
    if (skip?.if === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, node, this.scope.variableValues);
    return include?.if !== false;
  }
}
