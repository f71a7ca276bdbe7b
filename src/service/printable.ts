/**
 * Text taken from outside (a recording's file name, a field of it, a directory given at start)
 * as it can be printed to a terminal or put in a message: a name with escape codes cleared the
 * screen or retitled the window when printed raw.
 */

/** What would act on a terminal or hide what follows: C0, DEL, C1, bidirectional and invisible format characters, lone surrogates; and the backslash that escapes. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNPRINTABLE = /[\\\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with each such character written as `\xHH` or `\u{HHHH}` (a backslash as `\\`), cut to `max` characters of the original. */
export function printable(text: string, max = 300): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(UNPRINTABLE, (ch) => {
    if (ch === '\\') return '\\\\';
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
