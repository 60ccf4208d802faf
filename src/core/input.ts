// The input rules every area gets at the edge, whatever the transport: REST parameters are read
// through `Params` and GraphQL variables and literals through the operation checks and scalars,
// and both ask here. A new area inherits them without writing a line.

/** PostgreSQL `integer` ids: anything larger cannot name a row. */
export const MAX_ID = 2_147_483_647;

/** Years PostgreSQL `date`/`timestamp` columns and ISO 8601 both accept (PostgreSQL has no year 0). */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

/**
 * How deep a request's parameters may nest: JSON containers in a body, brackets in a form field
 * name. GitLab's default for both (its JSON validation middleware's `max_depth`, Rack's parameter
 * depth); no GitLab route reads deeper, and a deeper body is an attack on whatever walks it.
 */
export const MAX_NESTING = 32;

const [QUOTE, BACKSLASH, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = ['"', '\\', '[', ']', '{', '}'].map((c) => c.charCodeAt(0));

/**
 * True when the JSON text nests containers (`[`, `{`) more than `limit` deep, read from the bytes
 * before any parser builds it: a body 5,000 levels deep costs one pass and no stack. Brackets
 * inside strings do not count. UTF-8 continuation bytes never look like ASCII, so bytes suffice.
 */
export function jsonNestedDeeperThan(json: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth--;
  }
  return false;
}

/**
 * A UTF-16 surrogate without its other half. JSON's `\ud800` escape is the only way one arrives
 * (decoding UTF-8 bytes never yields one): it has no UTF-8 form, so PostgreSQL refuses it in jsonb
 * and text would silently store U+FFFD instead of what was sent.
 */
const SURROGATE = /[\ud800-\udfff]/;
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/** A text value that cannot be stored as sent: its parameter name and what is wrong with it. */
export type UnstorableText = { name: string; problem: 'contains a null byte' | 'contains an unpaired surrogate' };

function textProblem(text: string): UnstorableText['problem'] | null {
  if (text.includes('\0')) return 'contains a null byte';
  // The plain class first: almost no text holds a surrogate at all, paired or not.
  return SURROGATE.test(text) && UNPAIRED_SURROGATE.test(text) ? 'contains an unpaired surrogate' : null;
}

/** One container being walked: its keys (none for an array) and the next member to read. */
type Frame = { container: Record<string, unknown>; keys: string[] | null; length: number; next: number };

function frame(container: object): Frame {
  const keys = Array.isArray(container) ? null : Object.keys(container);
  return { container: container as Record<string, unknown>, keys, length: keys ? keys.length : (container as unknown[]).length, next: 0 };
}

const keyAt = (f: Frame, i: number) => (f.keys ? f.keys[i] : String(i));

/** The form name of the member each frame is reading (`description[nested][0]`), printable: without NULs, surrogates replaced. */
function nameOf(frames: Frame[]): string {
  const [first, ...rest] = frames.map((f) =>
    keyAt(f, f.next - 1)
      .replaceAll('\0', '')
      .replace(UNPAIRED_SURROGATES, '\ufffd'),
  );
  return first + rest.map((k) => `[${k}]`).join('');
}

/**
 * The first text value (or key) holding a NUL byte or an unpaired surrogate, named as a form
 * parameter (`description[nested][0]`), or null. PostgreSQL cannot store NUL in text, and git
 * would cut a commit message at it; GitLab refuses both, and invalid Unicode, with 400.
 * Walks nested objects and arrays (form hashes, JSON bodies, GraphQL variables) depth first in
 * reading order with its own stack, so no nesting depth can overflow the call stack; only the
 * containers on the current path are held.
 */
export function findUnstorableText(value: unknown): UnstorableText | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && { name: 'value', problem };
  }
  const frames: Frame[] = value && typeof value === 'object' ? [frame(value)] : [];
  while (frames.length) {
    const top = frames[frames.length - 1];
    if (top.next === top.length) {
      frames.pop();
      continue;
    }
    const key = keyAt(top, top.next++);
    const inner = top.container[key];
    const problem = (top.keys && textProblem(key)) || (typeof inner === 'string' && textProblem(inner));
    if (problem) return { name: nameOf(frames), problem };
    if (inner && typeof inner === 'object') frames.push(frame(inner));
  }
  return null;
}

/** A decimal id that can name a row: digits only, 1 to 2^31-1; null otherwise. */
export function parseId(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_ID ? n : null;
}

/** True when PostgreSQL can store the instant and it prints as a four-digit ISO 8601 year. */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= MIN_YEAR && year <= MAX_YEAR;
}

/** Escapes LIKE wildcards so a search for `%` or `_` matches those characters, not everything. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Case-insensitive filters for Prisma. Prisma turns `mode: 'insensitive'` into ILIKE without
 * escaping, so `%` and `_` in a search — or in a username or path being looked up — would match
 * anything. Every case-insensitive comparison goes through these.
 */
export const equalsIgnoringCase = (text: string) => ({ equals: escapeLike(text), mode: 'insensitive' as const });
export const containsIgnoringCase = (text: string) => ({ contains: escapeLike(text), mode: 'insensitive' as const });
export const startsWithIgnoringCase = (text: string) => ({ startsWith: escapeLike(text), mode: 'insensitive' as const });
