/**
 * Arguments of the venue and organizer routes (spec §2.2, §2.3, §4.5; CONTRACT.md §4, §6.3), also used to
 * validate venues and organizers written inline in an event. The detail arguments come from each kind's
 * descriptor (domain/linked/linked.ts): a field's kind decides how it is checked, its key is its domain name.
 */
import { Type } from '@sinclair/typebox';
import { plainText } from '../../../domain/content/html.js';
import {
  type FieldSpec,
  type KindOf,
  LINKED_KINDS,
  type LinkedInput,
  type LinkedListQuery,
  type LinkedType,
  type WireDetailsOf,
} from '../../../domain/linked/linked.js';
import { pageArg, perPageArg } from '../../collection.js';
import { type Arg, type ArgsMatch, accept, arg, argsFor, nonEmptyString } from '../../params.js';
import { syncArgs } from '../../sync.js';
import { authorArg, imageArg, publicationArgs, readablePostId, statusArg, statusFilterArg, truthy, websiteArg } from '../post-args.js';

/** The argument of one detail field, checked by its kind. */
function detailArg(name: string, spec: FieldSpec): Arg {
  const declared = (() => {
    switch (spec.kind) {
      case 'text':
      case 'email':
        return arg(Type.String({ description: `${spec.description}; empty clears it.` }), { check: (v: string) => accept(plainText(v)) });
      case 'flag':
        // typed string in the original (CONTRACT.md §6.3): `true/1/yes/on` are true, anything else false; a JSON
        // boolean or number is a type error, as there
        return arg(Type.String({ description: `${spec.description} (a string: "true"/"false"; default true).` }), {
          check: (v: string) => accept(truthy(v)),
        });
      case 'url':
        return websiteArg(spec.description);
      case 'latitude':
      case 'longitude': {
        const limit = spec.kind === 'latitude' ? 90 : 180;
        return arg(Type.Number({ minimum: -limit, maximum: limit, description: `${spec.description}.` }));
      }
    }
  })();
  return { ...declared, as: name };
}

type ArgsOfFields<F extends Readonly<Record<string, FieldSpec>>, V> = {
  readonly [K in keyof F & keyof V as F[K]['wire']]: Arg<V[K], K & string, 'optional'>;
};
type DetailArgs<T extends LinkedType> = ArgsOfFields<KindOf<T>['fields'], WireDetailsOf<T>>;

const nameArg = arg(Type.String({ description: 'The name.' }), { as: 'title', check: (v: string) => nonEmptyString(v) ?? accept(v.trim()) });

const postArgs = {
  author: authorArg,
  ...publicationArgs,
  description: arg(Type.String({ description: 'The description (HTML); empty clears it.' })),
  status: statusArg,
};

export type LinkedWriteArgs<T extends LinkedType> = typeof postArgs & { readonly [K in T]: typeof nameArg } & DetailArgs<T> & {
    readonly image: ReturnType<typeof imageArg>;
  };

/** Write arguments of a venue or organizer, in the original's order; `create` marks the name required. */
export function linkedWriteArgs<T extends LinkedType>(type: T, create: boolean): LinkedWriteArgs<T> {
  const fields = Object.entries(LINKED_KINDS[type].fields as Readonly<Record<string, FieldSpec>>);
  const { author, date, date_utc, description, status } = postArgs;
  return {
    author,
    date,
    date_utc,
    [type]: { ...nameArg, required: create, schema: Type.String({ description: `The ${type} name.` }) },
    description: { ...description, schema: Type.String({ description: `The ${type} description (HTML); empty clears it.` }) },
    status,
    ...Object.fromEntries(fields.map(([name, spec]) => [spec.wire, detailArg(name, spec)])),
    image: imageArg(true),
  } as unknown as LinkedWriteArgs<T>;
}

/** Compile-time: each kind's write arguments are exactly what its service takes. */
export type LinkedArgsMatch = [
  ArgsMatch<LinkedWriteArgs<'venue'>, LinkedInput<'venue'>>,
  ArgsMatch<LinkedWriteArgs<'organizer'>, LinkedInput<'organizer'>>,
];
const linkedArgsMatch: LinkedArgsMatch = [{}, {}];
void linkedArgsMatch;

export function linkedListArgs(type: LinkedType) {
  return argsFor<LinkedListQuery>()({
    page: pageArg,
    per_page: perPageArg,
    search: arg(Type.String({ description: `${type}s with one field containing every word of the string.` }), { check: nonEmptyString }),
    event: readablePostId('event', `Only the ${type}s of this event.`),
    has_events: arg(Type.Unknown({ description: `true: ${type}s with events (not drafts); false: the others.` }), {
      as: 'hasEvents',
      carry: 'given',
      check: (v: unknown) => accept(truthy(v)),
    }),
    only_with_upcoming: arg(Type.Unknown({ description: `true: only ${type}s with an upcoming event.` }), {
      as: 'onlyWithUpcoming',
      default: false,
      check: (v: unknown) => accept(truthy(v)),
    }),
    status: statusFilterArg,
    ...syncArgs,
  });
}
