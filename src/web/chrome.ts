/**
 * What every page has around its content: the site's name, the asset URLs, the view switcher (list, month,
 * day), the filter bar (a GET form: every filtered view is a URL) with its choices, and the subscribe menu of
 * the view (the iCalendar feed with the same filters). The choices (categories, tags, venues, organizers) are
 * read once per database version and visibility: every page needs them, and they change only with writes.
 */
import type { Config } from '../config/config.js';
import { htmlToText, termText } from '../domain/content/html.js';
import { listVisibility } from '../domain/visibility.js';
import { MONTH_PER_DAY, type PageContext, siteToday } from './calendar.pages.js';
import { dayParts, longDate, MONTHS, WEEKDAYS, weekdayIndex } from './format.js';
import { apiFilterPairs, type SubscribeLinks, subscribeLinks, type ViewBase, type ViewName, viewUrl } from './links.js';
import type { PageFilters } from './page-filters.js';
import { ASSETS, scriptJson } from './render.js';

export interface ChromeOptions {
  readonly title?: string;
  readonly base: ViewBase;
  /** The filters in force (with a category's or tag's own), and those the URL gave. */
  readonly filters: PageFilters;
  readonly given?: PageFilters;
  readonly view?: ViewName;
  readonly at?: { readonly date?: string; readonly page?: number; readonly past?: boolean };
  /** The embed: no site header; links open in the page that frames it; the filter bar only when asked. */
  readonly embed?: boolean;
  readonly filterBar?: boolean;
  /** The REST root the page names (`<link rel="alternate">`, CONTRACT.md §9.6). */
  readonly apiRoot: string;
}

export interface Choice {
  readonly value: string;
  readonly label: string;
}

export interface FilterChoices {
  readonly categories: readonly Choice[];
  readonly tags: readonly Choice[];
  readonly venues: readonly Choice[];
  readonly organizers: readonly Choice[];
}

const choiceCache = new Map<string, Promise<FilterChoices>>();
const CHOICE_LIMIT = 200;

async function readChoices(ctx: PageContext): Promise<FilterChoices> {
  const { services, actor } = ctx;
  const termQuery = { page: 1, perPage: CHOICE_LIMIT, order: 'asc', orderby: 'name', hideEmpty: false } as const;
  const linkedQuery = { page: 1, perPage: CHOICE_LIMIT, onlyWithUpcoming: false } as const;
  const [categories, tags, venues, organizers] = await Promise.all([
    services.categories.list(actor, termQuery),
    services.tags.list(actor, termQuery),
    services.venues.list(actor, linkedQuery),
    services.organizers.list(actor, linkedQuery),
  ]);
  const byLabel = (a: Choice, b: Choice) => a.label.localeCompare(b.label);
  return {
    categories: categories.terms.map((t) => ({ value: t.slug, label: termText(t.name) })),
    tags: tags.terms.map((t) => ({ value: t.slug, label: termText(t.name) })),
    venues: venues.items.map((v) => ({ value: String(v.record.id), label: htmlToText(v.record.title) })).sort(byLabel),
    organizers: organizers.items.map((o) => ({ value: String(o.record.id), label: htmlToText(o.record.title) })).sort(byLabel),
  };
}

export async function filterChoices(ctx: PageContext): Promise<FilterChoices> {
  const key = `${await ctx.services.dataVersion()} ${listVisibility(ctx.actor).key}`;
  let choices = choiceCache.get(key);
  if (!choices) {
    if (choiceCache.size >= 16) choiceCache.delete(choiceCache.keys().next().value as string);
    choices = readChoices(ctx);
    choices.catch(() => choiceCache.delete(key));
    choiceCache.set(key, choices);
  }
  return choices;
}

export interface Chrome {
  readonly site: { readonly name: string; readonly home: string };
  readonly title: string;
  readonly assets: { readonly css: string; readonly js: string; readonly frame: string };
  readonly embed: boolean;
  readonly view: ViewName | undefined;
  readonly views: readonly { readonly name: ViewName; readonly label: string; readonly url: string; readonly current: boolean }[];
  readonly filterBar:
    | {
        readonly action: string;
        /** Fields the form carries unchanged (the embed's view). */
        readonly hidden: readonly (readonly [string, string])[];
        readonly values: PageFilters;
        readonly choices: FilterChoices;
        readonly date: string;
      }
    | undefined;
  readonly subscribe: SubscribeLinks;
  readonly todayUrl: string | undefined;
  readonly heading: string | undefined;
  readonly apiRoot: string;
  /** WordPress' API discovery (what the `Link: rel="https://api.w.org/"` header names), as every WordPress page's head has it. */
  readonly apiDiscovery: string;
  // helpers the templates call
  readonly scriptJson: (value: unknown) => string;
  readonly weekdays: readonly string[];
  readonly perDay: number;
  readonly monthName: (month: string) => string;
  readonly dayLabel: (day: string) => string;
  readonly weekdayShort: (day: string) => string;
}

function dayLabel(day: string): string {
  const parts = dayParts(day);
  return `${WEEKDAYS[weekdayIndex(parts)]}, ${longDate(parts)}`;
}

const LABELS: Record<ViewName, string> = { list: 'List', month: 'Month', day: 'Day' };

export async function chrome(ctx: PageContext, config: Config, o: ChromeOptions): Promise<Chrome> {
  const home = ctx.urls.home;
  const asset = (name: string) => `${home}/events/assets/${name}?v=${ASSETS.get(name)?.version}`;
  const given = o.given ?? o.filters;
  const showBar = o.view !== undefined && (o.embed ? o.filterBar === true : o.filterBar !== false);
  const today = siteToday(ctx);
  const date = o.at?.date ?? o.filters.date ?? '';
  // a month's page (or a month picked in the filter bar) switches to a day of that month, not to `/events/YYYY-MM/`
  const day = /^\d{4}-\d{2}$/.test(date) ? (today.startsWith(date) ? today : `${date}-01`) : date;
  return {
    site: { name: config.siteName, home },
    title: o.title ?? 'Events',
    assets: { css: asset('calendar.css'), js: asset('calendar.js'), frame: asset('embed-frame.js') },
    embed: o.embed === true,
    view: o.view,
    views: (['list', 'month', 'day'] as const).map((name) => ({
      name,
      label: LABELS[name],
      url: viewUrl(o.base, name, given, name === 'list' ? {} : { date: (name === 'day' ? day : date) || undefined }),
      current: name === o.view,
    })),
    filterBar: showBar
      ? {
          // the plain view of the same kind: the form's category or tag replaces the one of the path
          action: o.base.embed ? `${home}/events/embed` : viewUrl({ path: `${home}/events` }, o.view ?? 'list', given).split('?')[0],
          hidden: o.base.embed
            ? [
                ['view', o.view ?? 'list'],
                ['filter_bar', '1'],
              ]
            : [],
          values: o.filters,
          choices: await filterChoices(ctx),
          date: o.view === 'month' ? (date || today).slice(0, 7) : day,
        }
      : undefined,
    subscribe: subscribeLinks(ctx.urls, '/events.ics', apiFilterPairs(given, o.base), config.siteName),
    todayUrl: o.view === 'list' ? undefined : o.view ? viewUrl(o.base, o.view, given, { date: today }) : undefined,
    heading: o.base.term ? `${o.base.term.kind === 'category' ? 'Category' : 'Tag'}: ${o.base.term.name}` : undefined,
    apiRoot: o.apiRoot,
    apiDiscovery: `${home}/${config.wpPaths ? 'wp-json/' : ''}`,
    scriptJson,
    weekdays: WEEKDAYS,
    perDay: MONTH_PER_DAY,
    monthName: (month: string) => MONTHS[Number(month.slice(5, 7)) - 1],
    dayLabel,
    weekdayShort: (day: string) => WEEKDAYS[weekdayIndex(dayParts(day))].slice(0, 3),
  };
}
