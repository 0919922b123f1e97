/**
 * Building blocks for the shapes that cross a boundary (the crawler's reports, the HTTP API), written
 * once as TypeBox schemas: the schema validates or serializes, and `Static<typeof X>` is its type, so
 * the two cannot drift apart. Small on purpose: TypeBox itself does the rest.
 */
import { Type, type TUnsafe } from '@sinclair/typebox';

/** A string that is one of `values` (a list from shared/enumerations.ts), as a plain JSON Schema `enum`. */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** A string or null (`{"type": ["string", "null"]}`), such as a time that has not happened yet. */
export function nullableString(): TUnsafe<string | null> {
  return Type.Unsafe<string | null>({ type: ['string', 'null'] });
}

/** An integer or null, such as the HTTP status of a request that got no answer. */
export function nullableInteger(): TUnsafe<number | null> {
  return Type.Unsafe<number | null>({ type: ['integer', 'null'] });
}
