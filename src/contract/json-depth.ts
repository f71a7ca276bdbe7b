// Shared by the reference service (recordings) and the console (suite files): both refuse or
// set apart JSON nested past what their recursive readers can walk, before parsing it.

/** Whether `text` (JSON) nests arrays or objects deeper than `max`: brackets counted outside strings, no parse. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}
