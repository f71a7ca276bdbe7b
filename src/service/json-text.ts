/**
 * JSON text of a parsed value, by a loop rather than recursion: a recording's body may be
 * nested a million deep (JSON.parse reads it; JSON.stringify threw RangeError, and a replay
 * answered 500 for it).
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A marker of text to emit as is, among the values still to write. */
class Verbatim {
  constructor(readonly text: string) {}
}
const COMMA = new Verbatim(',');
const CLOSE_ARRAY = new Verbatim(']');
const CLOSE_OBJECT = new Verbatim('}');

function write(value: unknown, sortKeys: boolean): string {
  const out: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length) {
    const v = todo.pop();
    if (v instanceof Verbatim) out.push(v.text);
    else if (Array.isArray(v)) {
      out.push('[');
      todo.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push(v[i]);
        if (i > 0) todo.push(COMMA);
      }
    } else if (isObject(v)) {
      out.push('{');
      todo.push(CLOSE_OBJECT);
      const keys = sortKeys ? Object.keys(v).sort() : Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push(v[keys[i]!], new Verbatim(`${JSON.stringify(keys[i])}:`));
        if (i > 0) todo.push(COMMA);
      }
    } else out.push(JSON.stringify(v) ?? 'null');
  }
  return out.join('');
}

/** `value` (parsed JSON) as compact JSON text, as JSON.stringify writes it, however deep. */
export const jsonText = (value: unknown): string => write(value, false);

/**
 * `value` (parsed JSON) as JSON text with every object's keys sorted: two values are equal
 * (keys in any order) exactly when their texts are.
 */
export const canonicalJson = (value: unknown): string => write(value, true);
