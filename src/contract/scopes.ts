/**
 * Scope rules of the Custom Metadata API and Agents API (docs/api.md, "Tokens and scopes").
 * The service enforces them and the console uses them to warn before a request
 * that a token will be refused, so both import this one module.
 */

export const GLOBAL_SCOPE = 'custommetadata:global_scope';
export const AGENTS_SCOPE = 'agents.run';
const GROUP_SCOPE_PREFIX = 'custommetadata:';

/**
 * Names are ASCII, so only A–Z fold: full Unicode folding would let the Kelvin sign
 * (U+212A) in a scope match a `k` in a group name.
 */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The scope that grants one group, spelt the way the vendor documents it. */
export function groupScope(group: string): string {
  return `${GROUP_SCOPE_PREFIX}${asciiLower(group)}`;
}

function normalize(scope: string): string {
  return asciiLower(scope.trim());
}

/** Group names are case-insensitive: `custommetadata:Sales` covers `sales`. */
export function scopesCoverGroup(scopes: readonly string[], group: string): boolean {
  const wanted = groupScope(group);
  return scopes.some((s) => {
    const n = normalize(s);
    return n === GLOBAL_SCOPE || n === wanted;
  });
}

export function scopesAllowAgents(scopes: readonly string[]): boolean {
  return scopes.some((s) => normalize(s) === AGENTS_SCOPE);
}

/** The scopes that would let a request for `group` through, for explanations. */
export function scopesThatCover(group: string): [string, string] {
  return [groupScope(group), GLOBAL_SCOPE];
}

/**
 * The scope grammar: the global scope, a group scope whose group is a valid group name
 * (letters and digits only, so never `__proto__` or `constructor`-like keys with `_`), or
 * agents.run. Spelt as documented; group names may use either case.
 */
const SCOPE_PATTERN = /^(custommetadata:global_scope|custommetadata:[A-Za-z0-9]{1,50}|agents\.run)$/;

/** A scope the reference service can mint; anything outside the grammar is refused. */
export function isKnownScopeShape(scope: string): boolean {
  return SCOPE_PATTERN.test(scope.trim());
}
