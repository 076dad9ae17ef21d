/**
 * WordPress' `_fields`: keep only the named fields of a response; `a.b` keeps `b` inside `a` (and inside each
 * item when `a` is a list). Arrays at the top level are filtered item by item.
 */
export function parseFields(value: unknown): string[] | undefined {
  const raw = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : undefined;
  if (raw === undefined) return undefined;
  const fields = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  return fields.length > 0 ? fields : undefined;
}

interface Tree {
  [key: string]: Tree | true;
}

/**
 * The fields as a tree of names. Its nodes have no prototype: a name is only ever a key of its own, so
 * `__proto__.x` or `constructor.name` name fields (that no answer has) instead of reaching Object.prototype.
 */
function tree(fields: readonly string[]): Tree {
  const root: Tree = Object.create(null);
  for (const field of fields) {
    let node = root;
    const parts = field.split('.');
    for (const [i, part] of parts.entries()) {
      if (node[part] === true) break;
      if (i === parts.length - 1) node[part] = true;
      else {
        node[part] ??= Object.create(null) as Tree;
        node = node[part] as Tree;
      }
    }
  }
  return root;
}

function pick(value: unknown, t: Tree): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, t));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const sub = t[key];
    if (sub === undefined) continue;
    // (an answer's own `__proto__` key, were there one, is written as a key, not as the copy's prototype)
    Object.defineProperty(out, key, { value: sub === true ? v : pick(v, sub), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function filterFields(body: unknown, fields: readonly string[]): unknown {
  return pick(body, tree(fields));
}
