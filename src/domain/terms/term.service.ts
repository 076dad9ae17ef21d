/**
 * Categories and tags: list, read, create, update, delete. Every method takes the actor first and asks the
 * policy before it touches storage. Arguments arrive validated (the route layer checks ids exist, as the
 * original does before its permission check); the service re-checks inside its transaction where a race
 * could have changed the answer.
 */

import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../actor.js';
import { isAuthenticated } from '../actor.js';
import { errors } from '../errors.js';
import { canManageCategories, canManageTags } from '../policies.js';
import { retryOnConflict } from '../posts/post-writes.js';
import { firstFreeSlug, sanitizeSlug } from '../slugs.js';
import { changedFieldNames } from '../sync/changed-fields.js';
import type { TaxonomyInfo, Term, TermEntry, TermFields, TermInput, TermListQuery } from './term.js';

/** A taxonomy's terms by id: their slugs and parents. */
type TermTree = Map<number, { slug: string; parentId: number }>;

export class TermService {
  constructor(
    private readonly storage: Storage,
    readonly info: TaxonomyInfo,
  ) {}

  /** What the change log calls this taxonomy's terms. */
  /** The key of an event that lists terms of this taxonomy. */
  private get eventField(): 'categories' | 'tags' {
    return this.resource === 'category' ? 'categories' : 'tags';
  }

  get resource(): 'category' | 'tag' {
    return this.info.hierarchical ? 'category' : 'tag';
  }

  /** Creating, updating and deleting terms of this taxonomy. */
  mayManage(actor: Actor): boolean {
    return this.info.hierarchical ? canManageCategories(actor) : canManageTags(actor);
  }

  private assertCanManage(actor: Actor): void {
    if (!this.mayManage(actor)) throw errors.forbidden(isAuthenticated(actor));
  }

  list(_actor: Actor, query: TermListQuery): Promise<{ terms: Term[]; total: number }> {
    return this.storage.terms.list(this.info.taxonomy, query);
  }

  /** The term, or the original's 400 for an id that is not a term of this taxonomy. */
  async get(_actor: Actor, id: number): Promise<Term> {
    const term = await this.storage.terms.find(this.info.taxonomy, id);
    if (!term) throw errors.invalidParam('id');
    return term;
  }

  /** The term as a conditional write checks it (every caller reads terms); undefined when there is none. */
  async item(_actor: Actor, id: number): Promise<Term | undefined> {
    return this.storage.terms.find(this.info.taxonomy, id);
  }

  /** The taxonomy's parent tree (categories' links name their ancestors). */
  tree() {
    return this.storage.terms.tree(this.info.taxonomy);
  }

  /** The tree last read, with the data version read before it (so the tree is at least that new). */
  private keptTree: { version: number; tree: TermTree; bySlug: Map<string, number> } | undefined;

  /**
   * The tree and its ids by slug, as of a data version read before (a request's, see route.ts requestVersion):
   * kept until the version moves, which any committed write does. Every category page resolves its filter with
   * it: reading the tree (~250 rows at the benchmark's size) was ~55 µs of the page's time on the event loop.
   * Without a version, read afresh and not kept.
   */
  private async treeAt(version: number | undefined): Promise<{ tree: TermTree; bySlug: Map<string, number> }> {
    const kept = this.keptTree;
    if (version !== undefined && kept?.version === version) return kept;
    const tree = await this.storage.terms.tree(this.info.taxonomy);
    const fresh = { version: version ?? -1, tree, bySlug: new Map([...tree].map(([id, node]) => [node.slug, id])) };
    if (version !== undefined && (this.keptTree === undefined || this.keptTree.version <= version)) this.keptTree = fresh;
    return fresh;
  }

  /**
   * The terms whose subtrees together are exactly `ids` (a resolved filter group), or undefined: tags as they are;
   * for categories the entries nothing else in the group is above, when every category under them is in the group
   * (what resolveFilter makes of categories and their children; not a group in a cycle of parents). From the tree
   * last kept (the filter's own, resolved in the same request at its data version: resolved without one, the tree
   * kept is another request's, perhaps from before the categories moved), else read.
   */
  async rootsOf(ids: readonly number[]): Promise<number[] | undefined> {
    if (ids.length === 0) return undefined;
    if (!this.info.hierarchical) return [...new Set(ids)];
    const tree = this.keptTree?.tree ?? (await this.treeAt(undefined)).tree;
    const group = new Set(ids);
    const roots = [...group].filter((id) => !group.has(tree.get(id)?.parentId ?? 0));
    if (roots.length === 0) return undefined;
    const rooted = new Set(roots);
    // every term of the tree under a root is in the group, and the group holds nothing else
    let under = 0;
    for (const id of tree.keys()) {
      let at: number | undefined = id;
      for (let depth = 0; at !== undefined && at !== 0 && depth <= tree.size; depth++) {
        if (rooted.has(at)) {
          if (!group.has(id)) return undefined;
          under++;
          break;
        }
        at = tree.get(at)?.parentId;
      }
    }
    return under === group.size ? roots : undefined;
  }

  /** Exists checks for the route layer's validators. */
  async exists(id: number): Promise<boolean> {
    return (await this.storage.terms.existingIds(this.info.taxonomy, [id])).size === 1;
  }

  async existingIds(ids: readonly number[]): Promise<Set<number>> {
    return this.storage.terms.existingIds(this.info.taxonomy, ids);
  }

  async create(actor: Actor, input: TermInput & { name: string }): Promise<Term> {
    this.assertCanManage(actor);
    if (!this.info.hierarchical && input.parent !== undefined) throw errors.taxonomyNotHierarchical();
    return retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        // creators of terms in one taxonomy take turns, so two cannot both find a name free
        await tx.lock(`term:${this.info.taxonomy}`);
        const parentId = input.parent ?? 0;
        if (parentId !== 0 && !(await tx.terms.find(this.info.taxonomy, parentId))) throw errors.invalidParam('parent');
        const name = input.name.trim();
        const existing = await tx.terms.findByName(this.info.taxonomy, name, this.info.hierarchical ? parentId : undefined);
        if (existing) throw errors.termExists(existing.id);
        const base = sanitizeSlug(input.slug ?? name) || sanitizeSlug(name) || 'term';
        const slug = await firstFreeSlug(base, (candidates) => tx.terms.takenSlugs(this.info.taxonomy, candidates));
        const id = await tx.terms.create({ taxonomy: this.info.taxonomy, name, slug, description: input.description ?? '', parentId });
        await tx.changes.note(this.resource, id, 'create');
        return this.written(tx, id);
      }),
    );
  }

  /** `ifVersion`: a conditional write's — only while the term is at that version, else 412 (FEATURES.md §2.3). */
  async update(actor: Actor, id: number, input: TermInput, ifVersion?: number): Promise<Term> {
    this.assertCanManage(actor);
    if (!this.info.hierarchical && input.parent !== undefined) throw errors.taxonomyNotHierarchical();
    return retryOnConflict(() =>
      this.storage.transaction(async (tx) => {
        // a move takes the taxonomy's turn, as creates do: two moves (or a move and a child made under the moved
        // term) would each read the tree as it was — a cycle past the check below, or term_ancestors copying
        // ancestors the other is replacing (PostgreSQL; migration 0028)
        if (input.parent !== undefined) await tx.lock(`term:${this.info.taxonomy}`);
        const term = await tx.terms.find(this.info.taxonomy, id);
        if (!term) throw errors.invalidParam('id');
        if (ifVersion !== undefined && term.version !== ifVersion) throw errors.preconditionFailed();
        const patch: { -readonly [K in keyof TermFields]?: TermFields[K] } = {};
        if (input.name !== undefined) patch.name = input.name.trim();
        if (input.description !== undefined) patch.description = input.description ?? '';
        if (input.slug !== undefined) {
          const slug = sanitizeSlug(input.slug);
          if (slug === '') throw errors.invalidParam('slug');
          if (slug !== term.slug) {
            const clash = await tx.terms.findBySlug(this.info.taxonomy, slug);
            if (clash && clash.id !== id) throw errors.duplicateTermSlug(slug);
            patch.slug = slug;
          }
        }
        if (input.parent !== undefined) {
          const parentId = input.parent ?? 0;
          if (parentId !== 0) {
            const tree = await tx.terms.tree(this.info.taxonomy);
            if (!tree.has(parentId)) throw errors.invalidParam('parent');
            // a term cannot become its own ancestor
            for (let at = parentId; at !== 0; at = tree.get(at)?.parentId ?? 0) {
              if (at === id) throw errors.invalidParam('parent', 'A category cannot be its own ancestor.');
            }
          }
          patch.parentId = parentId;
        }
        // (a category's `url` is its path: a new slug or parent moves it, and the url of every category under it)
        const moved = this.info.hierarchical && (patch.slug !== undefined || (patch.parentId !== undefined && patch.parentId !== term.parentId));
        const below = moved ? await this.descendants(tx, id) : [];
        const written = await tx.terms.update(id, patch, ifVersion);
        if (!written && ifVersion !== undefined) throw errors.preconditionFailed();
        // (PostgreSQL: deleted by another writer since it was read — gone, as for an update that comes after)
        if (!written && !(await tx.terms.find(this.info.taxonomy, id))) throw errors.invalidParam('id');
        await tx.changes.note(this.resource, id, 'update', { fields: [...changedFieldNames(term, patch), ...(moved ? ['url'] : [])] });
        await tx.changes.noteEventsEmbedding('term', id, this.eventField);
        await this.rewritten(tx, below, ['url']);
        return this.written(tx, id);
      }),
    );
  }

  /** The categories under a category, at any depth, with their parents (none for tags). */
  private async descendants(tx: Storage, id: number): Promise<{ id: number; parentId: number }[]> {
    if (!this.info.hierarchical) return [];
    const tree = await tx.terms.tree(this.info.taxonomy);
    const out: { id: number; parentId: number }[] = [];
    const under = new Set([id]);
    // (parents before children is not the tree's order: walk until nothing is added; a loop written past the API ends too)
    for (let added = true; added; ) {
      added = false;
      for (const [termId, node] of tree) {
        if (!under.has(termId) && under.has(node.parentId)) {
          under.add(termId);
          out.push({ id: termId, parentId: node.parentId });
          added = true;
        }
      }
    }
    return out;
  }

  /** Terms whose answer another term's write changed: written (version, modified time) and in the change log. */
  private async rewritten(tx: Storage, terms: readonly { id: number }[], fields: string[]): Promise<void> {
    if (terms.length === 0) return;
    await tx.terms.touch(terms.map((t) => t.id));
    for (const t of terms) await tx.changes.note(this.resource, t.id, 'update', { fields });
  }

  /** The term just written, read back inside the write's transaction. */
  private async written(tx: Storage, id: number): Promise<Term> {
    const term = await tx.terms.find(this.info.taxonomy, id);
    if (!term) throw new Error(`term ${id} is missing right after it was written`);
    return term;
  }

  /** Deletes for good (no trash for terms) and answers with the term as it was. `ifVersion`: see update. */
  async remove(actor: Actor, id: number, ifVersion?: number): Promise<Term> {
    this.assertCanManage(actor);
    // (retried as an update is: on PostgreSQL it writes the rows of the events that show it, which event writes lock too)
    return retryOnConflict(() => this.removeOnce(id, ifVersion));
  }

  private removeOnce(id: number, ifVersion?: number): Promise<Term> {
    return this.storage.transaction(async (tx) => {
      // (the taxonomy's turn: its children move up to its parent, see update)
      await tx.lock(`term:${this.info.taxonomy}`);
      const term = await tx.terms.find(this.info.taxonomy, id);
      if (!term) throw errors.invalidParam('id');
      if (ifVersion !== undefined && term.version !== ifVersion) throw errors.preconditionFailed();
      // (before the links go)
      await tx.changes.noteEventsEmbedding('term', id, this.eventField);
      const below = await this.descendants(tx, id);
      const children = new Set(below.filter((d) => d.parentId === id).map((d) => d.id));
      const deleted = await tx.terms.remove(term, ifVersion);
      if (!deleted && ifVersion !== undefined) throw errors.preconditionFailed();
      await tx.changes.note(this.resource, id, 'delete');
      // its children move up to its parent (their `parent` changes, and with it the events that show them); every
      // category under it has a shorter path
      await this.rewritten(
        tx,
        below.filter((d) => children.has(d.id)),
        ['parent', 'url'],
      );
      for (const child of children) await tx.changes.noteEventsEmbedding('term', child, this.eventField);
      await this.rewritten(
        tx,
        below.filter((d) => !children.has(d.id)),
        ['url'],
      );
      return term;
    });
  }

  /**
   * Terms for an event write (CONTRACT.md §6.5): ids of existing terms are taken (unknown ids skipped);
   * other entries match a term by slug or name, and an unknown name creates the term. Runs inside the
   * caller's transaction so a failed write leaves no new term behind.
   */
  async resolveForPost(tx: Storage, entries: readonly TermEntry[]): Promise<number[]> {
    return (await resolveTerms(tx, [{ service: this, entries }]))[0].map((t) => t.id);
  }

  /** An entry looked up in vain: after the taxonomy's turn, found by the one-at-a-time lookups or created. */
  async findOrCreate(tx: Storage, text: string, alone: boolean): Promise<Term> {
    const find = async () =>
      (await tx.terms.findBySlug(this.info.taxonomy, text)) ??
      (await tx.terms.findBySlug(this.info.taxonomy, sanitizeSlug(text))) ??
      (await tx.terms.findByName(this.info.taxonomy, text));
    // (the caller looked again after taking the turn; another entry of the same write may have made it since)
    const existing = alone ? undefined : await find();
    if (existing) return existing;
    const base = sanitizeSlug(text) || 'term';
    const slug = await firstFreeSlug(base, (candidates) => tx.terms.takenSlugs(this.info.taxonomy, candidates));
    const term = await tx.terms.createTerm({ taxonomy: this.info.taxonomy, name: text, slug, description: '', parentId: 0 });
    await tx.changes.note(this.resource, term.id, 'create');
    return term;
  }

  /**
   * List filter entries → term ids, with every descendant for categories. As in the original (CONTRACT.md
   * §3.4): an entry must name a term by slug, id or name, else undefined (its 400); but only slugs and ids
   * filter, so an entry that is only a name matches no event.
   */
  async resolveFilter(entries: readonly (number | string)[], version?: number): Promise<number[] | undefined> {
    const ids = new Set<number>();
    // categories: the taxonomy's tree, which the descendants need, answers slugs and ids too (one statement where
    // a category page took two, a round trip each on PostgreSQL; slugs are unique within a taxonomy)
    const known = this.info.hierarchical ? await this.treeAt(version) : undefined;
    const tree = known?.tree;
    const bySlug = known?.bySlug;
    for (const entry of entries) {
      const text = String(entry).trim();
      const numeric = /^\d+$/.test(text);
      const id = bySlug
        ? (bySlug.get(text) ?? (numeric && tree?.has(Number(text)) ? Number(text) : undefined))
        : (
            (await this.storage.terms.findBySlug(this.info.taxonomy, text)) ??
            (numeric ? await this.storage.terms.find(this.info.taxonomy, Number(text)) : undefined)
          )?.id;
      if (id !== undefined) ids.add(id);
      else if (!(await this.storage.terms.findByName(this.info.taxonomy, text))) return undefined;
    }
    if (tree && ids.size > 0) {
      let grew = true;
      while (grew) {
        grew = false;
        for (const [id, node] of tree) {
          if (!ids.has(id) && ids.has(node.parentId)) {
            ids.add(id);
            grew = true;
          }
        }
      }
    }
    return [...ids];
  }
}

const isId = (entry: TermEntry): entry is number | string => typeof entry === 'number' || (typeof entry === 'string' && /^\d+$/.test(entry.trim()));
/** The text of an entry that is not an id: a slug or name. */
const textOf = (entry: TermEntry) => (typeof entry === 'object' ? entry.name : String(entry)).trim();

/**
 * The terms of an event write's entries, per taxonomy (see TermService.resolveForPost), each list in entry order
 * without repeats. Every entry of every taxonomy is looked up in one statement; only entries it does not find
 * take the taxonomy's turn and are looked up again (another writer may have just made them), then created.
 * An entry matches, in this order: a term with that id (numeric entries), that slug, the slug it would make,
 * then the oldest term with that name, case-insensitively.
 */
export async function resolveTerms(tx: Storage, requests: readonly { service: TermService; entries: readonly TermEntry[] }[]): Promise<Term[][]> {
  const texts = (entries: readonly TermEntry[]) =>
    entries
      .filter((e) => !isId(e))
      .map(textOf)
      .filter((t) => t !== '');
  const lookups = (rs: typeof requests) =>
    rs.map(({ service, entries }) => {
      const words = texts(entries);
      return {
        taxonomy: service.info.taxonomy,
        ids: entries.filter(isId).map((e) => Number(e)),
        slugs: [...words, ...words.map(sanitizeSlug)].filter((s) => s !== ''),
        names: words.map((w) => w.toLowerCase()),
      };
    });
  // By ids and slugs first (the unique index), then by name only the words no slug matched: a name's match is
  // decided last anyway (see match), and on SQLite comparing names lower-cases every term's name in JavaScript
  // (`ulower`), a fifth of a realistic create's statements' time with 250 terms (issue 17).
  const lookUp = async (rs: typeof requests): Promise<(Term & { lname: string })[]> => {
    const found = await tx.terms.lookup(lookups(rs).map((l) => ({ ...l, names: [] })));
    const byName = rs.map(({ service, entries }) => {
      const taxonomy = service.info.taxonomy;
      const slugged = (text: string) => found.some((t) => t.taxonomy === taxonomy && (t.slug === text || t.slug === sanitizeSlug(text)));
      return {
        taxonomy,
        ids: [],
        slugs: [],
        names: texts(entries)
          .filter((text) => !slugged(text))
          .map((text) => text.toLowerCase()),
      };
    });
    if (byName.every((l) => l.names.length === 0)) return found;
    const seen = new Set(found.map((t) => t.id));
    // in id order, as one lookup answers (the oldest of a name first)
    return [...found, ...(await tx.terms.lookup(byName)).filter((t) => !seen.has(t.id))].sort((a, b) => a.id - b.id);
  };
  // entries this transaction resolved before need no lookup (see TermStore.remember)
  const unknown = requests.map((r) => ({ ...r, entries: r.entries.filter((e) => !tx.terms.resolvedEntry(r.service.info.taxonomy, e)) }));
  const found = await lookUp(unknown);
  const match = (pool: readonly (Term & { lname?: string })[], taxonomy: string, entry: TermEntry): Term | undefined => {
    const own = pool.filter((t) => t.taxonomy === taxonomy);
    if (isId(entry)) return own.find((t) => t.id === Number(entry));
    const text = textOf(entry);
    const slug = sanitizeSlug(text);
    return (
      own.find((t) => t.slug === text) ??
      own.find((t) => t.slug === slug) ??
      // (`found` is ordered by id: the oldest of that name, as findByName picks)
      own.find((t) => t.lname !== undefined && t.lname === text.toLowerCase())
    );
  };
  const out: Term[][] = [];
  for (const { service, entries } of requests) {
    const taxonomy = service.info.taxonomy;
    let pool: (Term & { lname?: string })[] = found;
    // (entries, not their texts: a `{ name }` of digits stays a name)
    let missing = entries.filter((e) => !isId(e) && textOf(e) !== '' && !tx.terms.resolvedEntry(taxonomy, e) && !match(pool, taxonomy, e));
    if (missing.length > 0) {
      // about to create: take the taxonomy's turn, then look again
      await tx.lock(`term:${taxonomy}`);
      pool = [...pool, ...(await lookUp([{ service, entries: missing }]))];
      missing = missing.filter((e) => !match(pool, taxonomy, e));
    }
    const made = new Map<string, Term>();
    for (const text of missing.map(textOf)) {
      if (made.has(text)) continue;
      made.set(text, await service.findOrCreate(tx, text, made.size === 0));
    }
    const terms: Term[] = [];
    for (const entry of entries) {
      if (!isId(entry) && textOf(entry) === '') continue;
      const term = tx.terms.resolvedEntry(taxonomy, entry) ?? match(pool, taxonomy, entry) ?? (isId(entry) ? undefined : made.get(textOf(entry)));
      if (term) tx.terms.rememberEntry(taxonomy, entry, term);
      if (term && !terms.some((t) => t.id === term.id)) terms.push(term);
    }
    out.push(terms);
  }
  return out;
}
