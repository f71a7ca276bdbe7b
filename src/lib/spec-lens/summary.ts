/**
 * The badge's words for a lens result. Kept apart from lens.ts so the badge can import it
 * without pulling Ajv and the spec into the page's chunk.
 */
import type { LensResult } from './lens';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export interface LensSummary {
  /** 'neutral': an error body as documented, which is no good news to colour green. */
  tone: 'match' | 'neutral' | 'differs' | 'none';
  label: string;
}

/**
 * "matches the public schema", "N differences", or "No public schema for …", followed by
 * the undocumented fields and other notes, which never make an answer differ: an instance
 * may send more than the documentation promises, and the reader should still see it.
 */
export function summarize(result: LensResult, subject: string, options: { inError?: boolean } = {}): LensSummary {
  if (result.kind === 'no-schema') return { tone: 'none', label: `No public schema for ${subject}` };
  const errors = result.differences.filter((d) => d.severity === 'error').length;
  const undocumented = result.differences.filter((d) => d.undocumented).length;
  const notes = result.differences.filter((d) => d.severity === 'note' && !d.undocumented).length;
  const parts = [errors ? plural(errors, 'difference', 'differences') : options.inError ? 'error body as documented' : 'matches the public schema'];
  if (undocumented) parts.push(plural(undocumented, 'undocumented field', 'undocumented fields'));
  if (notes) parts.push(plural(notes, 'note', 'notes'));
  return { tone: errors ? 'differs' : options.inError ? 'neutral' : 'match', label: parts.join(' · ') };
}
