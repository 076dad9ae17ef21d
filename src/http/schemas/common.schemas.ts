/** Response schemas shared by several routes. */
import { Type } from '@sinclair/typebox';

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ description: "Machine-readable error code (the original API's codes)." }),
    message: Type.String({ description: 'Human-readable explanation.' }),
    data: Type.Object(
      {
        status: Type.Integer({ description: 'The HTTP status code.' }),
        params: Type.Optional(
          Type.Union([Type.Record(Type.String(), Type.String()), Type.Array(Type.String())], {
            description: 'The invalid (object: name → message) or missing (array of names) parameters.',
          }),
        ),
        details: Type.Optional(
          Type.Union(
            [
              Type.Record(Type.String(), Type.Object({ code: Type.String(), message: Type.String(), data: Type.Unknown() })),
              Type.Array(Type.Unknown(), { maxItems: 0 }),
            ],
            {
              description:
                "With `params`: the failures WordPress' validators give as errors (a code of their own, e.g. a schema check's `rest_invalid_type`), by parameter; `[]` when none did.",
            },
          ),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'Error', title: 'Error' },
);

/** The integer page/per_page pair every collection takes; per_page is capped at 50, default 4. */
export const MAX_PER_PAGE = 50;
export const DEFAULT_PER_PAGE = 4;
