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
 * "matches the public schema" (or, for a durable run's answers, "matches the official client’s
 * model"), "N differences", or "No public schema for …", followed by
 * the undocumented fields and other notes, which never make an answer differ: an instance
 * may send more than the documentation promises, and the reader should still see it.
 */
export function summarize(result: LensResult, subject: string, options: { inError?: boolean } = {}): LensSummary {
  if (result.kind === 'no-schema') return { tone: 'none', label: `No public schema for ${subject}` };
  const errors = result.differences.filter((d) => d.severity === 'error').length;
  const undocumented = result.differences.filter((d) => d.undocumented).length;
  const referenceCodes = result.differences.filter((d) => d.referenceCode).length;
  const notes = result.differences.filter((d) => d.severity === 'note' && !d.undocumented && !d.referenceCode).length;
  const matches = result.source === 'client-models' ? 'matches the official client’s model' : 'matches the public schema';
  const parts = [errors ? plural(errors, 'difference', 'differences') : options.inError ? 'error body as documented' : matches];
  if (undocumented) parts.push(plural(undocumented, 'undocumented field', 'undocumented fields'));
  // The bundled service's own codes are its choices, not an instance straying from the documentation.
  if (referenceCodes) parts.push(plural(referenceCodes, 'reference-service code', 'reference-service codes'));
  if (notes) parts.push(plural(notes, 'note', 'notes'));
  return { tone: errors ? 'differs' : options.inError ? 'neutral' : 'match', label: parts.join(' · ') };
}
