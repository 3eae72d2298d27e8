/**
 * The type of the registry's handler table, derived from the IPC contract (shared/ipc/contract.ts) alone: each
 * channel's handler takes the channel's parsed input and must return what the channel's output schema accepts, so a
 * handler that answers another shape (a field renamed in a service, a handler switched to another service) fails to
 * compile where the handler is written. The registry still parses every answer with the schema at run time
 * (`internal::invalid_output`): the types cannot see values a service declares `unknown`, nor what redaction does.
 */
import type { z } from 'zod';
import type { CHANNELS, Channel } from '../../../shared/ipc/contract.js';

/** A channel's input after the contract parsed it (defaults applied). */
export type ParsedInput<C extends Channel> = z.output<(typeof CHANNELS)[C]['input']>;

/**
 * What a schema accepts, minus the `[key: string]: unknown` of its loose objects: a loose object takes any further
 * field at run time, and dropping the open signature lets a service's declared interface (which has no index
 * signature) fit it. Every named field keeps its type; a record of known values (`z.record(z.string(), z.number())`)
 * keeps its signature.
 */
export type Accepted<T> = T extends readonly (infer U)[]
  ? readonly Accepted<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Accepted<T[K]> }
    : T;

/** What a channel's handler may answer: what its output schema accepts. */
export type HandlerOutput<C extends Channel> = Accepted<z.input<(typeof CHANNELS)[C]['output']>>;

export type ChannelHandler<C extends Channel> = (input: ParsedInput<C>) => HandlerOutput<C> | Promise<HandlerOutput<C>>;

/** One handler per channel, each typed by its channel. */
export type ChannelHandlers = { [C in Channel]: ChannelHandler<C> };
