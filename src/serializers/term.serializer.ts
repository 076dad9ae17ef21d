/**
 * Terms leave the service in two shapes (CONTRACT.md §2.5): the term-route shape, and the shape embedded in
 * events. Each field is written out here and nowhere else.
 */
import { specialChars } from '../domain/content/html.js';
import type { TaxonomyInfo, Term } from '../domain/terms/term.js';
import type { CategoryResponse, TagResponse } from '../http/routes/categories-tags/categories-tags.schemas.js';
import type { EmbeddedTerm, TermUrls } from '../http/schemas/components.schemas.js';
import type { Urls } from '../http/urls.js';

export type TermResponse = CategoryResponse | TagResponse;

/** Slug path of a category from the root (`parent/child`), from a map of the whole tree. */
export type TermTree = ReadonlyMap<number, { slug: string; parentId: number }>;

function termUrls(term: Term, info: TaxonomyInfo, urls: Urls): TermUrls {
  const collection = urls.rest(`/${info.route}`);
  const out: TermUrls = { self: `${collection}/${term.id}`, collection };
  if (term.parentId !== 0) out.up = `${collection}/${term.parentId}`;
  return out;
}

function publicLink(term: Term, info: TaxonomyInfo, urls: Urls, tree: TermTree | undefined): string {
  if (!info.hierarchical) return urls.tagLink(term.slug);
  const path = [term.slug];
  const seen = new Set([term.id]);
  for (let at = term.parentId, node = tree?.get(at); at !== 0 && node && !seen.has(at); at = node.parentId, node = tree?.get(at)) {
    seen.add(at);
    path.unshift(node.slug);
  }
  return urls.categoryLink(path);
}

export function serializeTerm(term: Term, info: TaxonomyInfo, urls: Urls, tree?: TermTree): TermResponse {
  const head = {
    id: term.id,
    count: term.count,
    description: term.description,
    name: specialChars(term.name),
    slug: term.slug,
    taxonomy: info.taxonomy,
  };
  // only categories have `parent`; it sits between `taxonomy` and `meta` in the original (keys added to the object,
  // not spread into a new one: see linked.serializer.ts)
  const out = info.hierarchical ? Object.assign(head, { parent: term.parentId }) : head;
  return Object.assign(out, { meta: [], url: publicLink(term, info, urls, tree), urls: termUrls(term, info, urls) });
}

export function serializeEmbeddedTerm(term: Term, info: TaxonomyInfo, urls: Urls): EmbeddedTerm {
  return {
    name: specialChars(term.name),
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: info.taxonomy,
    description: term.description,
    parent: term.parentId,
    count: term.count,
    filter: 'raw',
    id: term.id,
    urls: termUrls(term, info, urls),
  };
}
