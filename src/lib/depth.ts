/**
 * Whether a JSON value nests deeper than `limit` objects and arrays, found without recursion
 * (a value from an instance may nest thousands of levels: a recursive walk would overflow the
 * stack before it could say so) and in time linear in the value's size.
 */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
