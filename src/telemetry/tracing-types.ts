import type { Attributes, Span } from '@opentelemetry/api';
import type { Request, Response } from 'express';

/** What tracing.ts (the door, always loaded) and tracing-sdk.ts (the SDK, loaded when on) share. */

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: Attributes;
  /**
   * W3C traceparents this span links to (the outbox rows a fan-out reads, the event of an
   * attempt); null and malformed ones are skipped.
   */
  links?: ReadonlyArray<string | null | undefined>;
}

/** The parts of express's request and response the naming of a server span reads. */
export interface RoutedRequest {
  baseUrl: string;
}
export interface RoutedResponse {
  locals: Record<string, unknown>;
}

/** What the SDK side (tracing-sdk.ts) provides once loaded. */
export interface TracingRuntime {
  withSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T>;
  traceparent(span: Span): string | null;
  logFields(span: Span): Record<string, string>;
  instrumentQueries(probe: object): void;
  /** `sql` (a postgres.js pool or transaction) whose statements are children of `span`; without one, a handle that marks nothing. */
  tracedSql<Q extends object>(sql: Q, span: Span | undefined): Q;
  /** The span a handle made by tracedSql carries; undefined for any other handle. */
  spanOfSql(sql: object): Span | undefined;
  /** The server span of a request while it is recorded (a sampled request). */
  requestSpan(res: RoutedResponse): Span | undefined;
  startRequestSpan(req: Request, res: Response): void;
  nameRequest(req: RoutedRequest, res: RoutedResponse, operationId: string, path: string): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}
