import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, type FieldNode, type GraphQLResolveInfo, type SelectionNode } from 'graphql';
import { collectFields } from './selections.ts';

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

  /**
   * The selections of the fields named `name` one level down, merged. A fragment's fields are the
   * same nodes wherever it is spread, so it is followed once across all the fields held here.
   */
  child(name: string): Lookahead {
    const found: FieldNode[] = [];
    const visited = new Set<string>();
    const collect = { fragment: (fragment: string) => this.scope.fragments[fragment], included: (selection: SelectionNode) => this.included(selection) };
    for (const set of this.fields.map((field) => field.selectionSet)) {
      if (!set) continue;
      for (const { field } of collectFields(set, collect, visited)) if (field.name.value === name) found.push(field);
    }
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

  private included(node: SelectionNode) {
    if (!node.directives?.length) return true;
    const skip = getDirectiveValues(GraphQLSkipDirective, node, this.scope.variableValues);
    if (skip?.if === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, node, this.scope.variableValues);
    return include?.if !== false;
  }
}
