/**
 * A value's JSON as UTF-8 bytes, the same bytes as `Buffer.from(JSON.stringify(value))`, written a
 * piece at a time. JSON.stringify returns a large answer (a page of 100 releases: 170-350 KB) as a
 * chain of parts, and the first read of its characters (for its UTF-8 length, or to write it)
 * copies the chain into one new string. A large string gets memory pages of its own, mapped for
 * it and unmapped after the next collection: where page faults are dear (VMs), that copy costs
 * far more than encoding the pieces (bench/RESULTS.md, "Figures behind the code"). The pieces
 * below are each an element of an array, a few KB, copied in the young generation's pages, which
 * stay mapped; the bytes go to one buffer sized by the pieces' own lengths. Objects of a few keys
 * (GraphQL's `data`, a field, a connection) are envelopes walked to reach the lists inside them;
 * any other object is one piece (a REST entity: one JSON.stringify, not one per field).
 *
 * JSON.stringify's rules hold: properties in `Object.keys` order; properties holding `undefined`,
 * a function or a symbol left out, array elements holding one written as `null`; objects with a
 * `toJSON`, and anything that is not a plain object or an array, written by JSON.stringify whole.
 */
export function jsonBytes(value: unknown): Buffer | undefined {
  const pieces: string[] = [];
  if (!writeValue(value, pieces)) return undefined;
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const piece of pieces) offset += bytes.write(piece, offset);
  return bytes;
}

/** Objects with more keys than this are written whole. */
const ENVELOPE_KEYS = 4;

const isPlainObject = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
};

/** Writes a value's JSON; false (nothing written) where JSON.stringify leaves the value out. */
function writeValue(value: unknown, pieces: string[]): boolean {
  if (Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    pieces.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) pieces.push(',');
      // An element is a piece of its own, whatever it holds: the pieces stay small without
      // walking every field of every row.
      pieces.push(JSON.stringify(value[i]) ?? 'null');
    }
    pieces.push(']');
    return true;
  }
  const keys = value !== null && typeof value === 'object' && isPlainObject(value) ? Object.keys(value) : null;
  if (keys && keys.length <= ENVELOPE_KEYS) {
    pieces.push('{');
    let first = true;
    for (const key of keys) {
      const at = pieces.length;
      pieces.push(first ? '' : ',', JSON.stringify(key), ':');
      if (writeValue((value as Record<string, unknown>)[key], pieces)) first = false;
      else pieces.length = at;
    }
    pieces.push('}');
    return true;
  }
  const text = JSON.stringify(value);
  if (text === undefined) return false;
  pieces.push(text);
  return true;
}
