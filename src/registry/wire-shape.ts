import type { z } from 'zod';

/**
 * Flattens intersections and interface-versus-alias differences all the way down, so two spellings of
 * one shape compare equal; arrays, tuples, optional and readonly members keep their form.
 */
type Flat<T> = T extends object ? { [K in keyof T]: Flat<T[K]> } : T;

/**
 * Whether `A` and `B` are the same type. Assignability both ways is not enough: an optional member
 * present on one side only, or an `any`, would pass it.
 */
export type Same<A, B> = (<X>() => X extends Flat<A> ? 1 : 2) extends <X>() => X extends Flat<B> ? 1 : 2 ? true : false;

/**
 * The named members of `T`, without its index signature: what a stored row (a `LogRow`, which admits
 * any further key) declares it holds.
 */
export type NamedMembers<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * Binds a tool schema to the domain type it puts on the wire: `wireShape<Domain>()(z.object(...))`
 * returns the schema unchanged, and does not compile when what the schema parses to is not exactly
 * `Domain` (a member missing, extra, optional on one side only, or of another type). The domain owns
 * the type; the schema adds what only the wire needs (bounds, patterns, descriptions).
 */
export const wireShape =
  <Domain>() =>
  <S extends z.ZodType>(schema: S, ..._mismatch: Same<z.output<S>, Domain> extends true ? [] : [schemaDiffersFromDomainType: never]): S =>
    schema;
