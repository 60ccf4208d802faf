import { ParamError } from './errors.ts';

/**
 * The name one input field has in each interface: the key is the service's and GraphQL's name,
 * the value GitLab's REST parameter (`{ milestoneIds: 'milestone_ids' }`).
 */
export type FieldNames<T> = { [K in keyof T]?: string };

/** One broken rule, worded for each interface with its own field names. */
export type InputProblem = { rest: string; graphql: string };

const given = (value: unknown) => value !== undefined && value !== null;

function worded<T>(names: FieldNames<T>, keys: (keyof T & string)[], sentence: (fields: string[]) => string): InputProblem {
  return { rest: sentence(keys.map((k) => names[k]!)), graphql: sentence(keys) };
}

const keysOf = <T>(names: FieldNames<T>) => Object.keys(names) as (keyof T & string)[];

/**
 * Rules GitLab declares on its REST parameters (Grape's `at_least_one_of`, `mutually_exclusive`,
 * `values:`) hold for the input of a use case whichever interface it came through, so the
 * services check them here. REST answers Grape's `{"error": "name, path are missing, …"}`;
 * GraphQL gets the same sentence with its own field names.
 */
export const rules = {
  /**
   * Grape's `at_least_one_of`. Grape counts a parameter sent as null as given; `nullIsGiven`
   * keeps that where a null means something (clearing a value) and a later check refuses it.
   */
  atLeastOneOf<T>(input: T, names: FieldNames<T>, opts: { nullIsGiven?: boolean } = {}): InputProblem | null {
    const keys = keysOf(names);
    if (keys.some((k) => given(input[k]) || (opts.nullIsGiven && input[k] === null))) return null;
    return worded(names, keys, (fields) => `${fields.join(', ')} are missing, at least one parameter must be provided`);
  },

  /** Grape's `mutually_exclusive`; `message` words the rule with the fields' names, as GitLab's custom messages do. */
  mutuallyExclusive<T>(input: T, names: FieldNames<T>, message: (fields: string[]) => string = () => 'are mutually exclusive'): InputProblem | null {
    const keys = keysOf(names);
    if (keys.filter((k) => given(input[k])).length < 2) return null;
    return worded(names, keys, (fields) => `${fields.join(', ')} ${message(fields)}`);
  },

  /** Grape's `exactly_one_of`: one of the fields, not none and not several. */
  exactlyOneOf<T>(input: T, names: FieldNames<T>): InputProblem | null {
    const keys = keysOf(names);
    const count = keys.filter((k) => given(input[k])).length;
    if (count === 1) return null;
    return worded(names, keys, (fields) => `${fields.join(', ')} ${count ? 'are mutually exclusive' : 'are missing, exactly one parameter must be provided'}`);
  },

  /** Grape's `all_or_none_of`. */
  allOrNoneOf<T>(input: T, names: FieldNames<T>): InputProblem | null {
    const keys = keysOf(names);
    const count = keys.filter((k) => given(input[k])).length;
    if (count === 0 || count === keys.length) return null;
    return worded(names, keys, (fields) => `${fields.join(', ')} provide all or none of parameters`);
  },

  /** Grape's `values:`: one problem per given field whose value `accept` refuses. */
  values<T>(input: T, names: FieldNames<T>, accept: (value: never) => boolean): InputProblem[] {
    return keysOf(names)
      .filter((k) => given(input[k]) && !accept(input[k] as never))
      .map((k) => worded(names, [k], ([field]) => `${field} does not have a valid value`));
  },
};

/** Answers every broken rule at once, joined as Grape joins them: `a is missing, b does not have a valid value`. */
export function checkInput(...problems: (InputProblem | InputProblem[] | null)[]): void {
  const list = problems.flat().filter((p): p is InputProblem => p !== null);
  if (!list.length) return;
  throw new ParamError(list.map((p) => p.rest).join(', '), list.map((p) => p.graphql).join(', '));
}
