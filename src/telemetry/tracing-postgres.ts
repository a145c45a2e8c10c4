import { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';

/**
 * A client span per PostgreSQL statement sent through a traced handle (tracedSql below: the pool
 * or a transaction of a request, a fan-out, an attempt, a CLI command, carrying its span).
 * postgres.js has no OpenTelemetry instrumentation and no hook that sees a statement end, so its
 * query class is wrapped where every statement starts: `handle()`, which `then`, `execute`,
 * `forEach` and cursors call once per query. The wrap is installed only when tracing is on
 * (tracing.ts traceQueries, called from src/db/connect.ts) and removed at shutdown.
 *
 * Recorded: the statement text of tagged-template queries, which holds `$1`-style placeholders
 * and never a value (postgres.js sends every interpolation as a parameter), and of the prepared
 * `unsafe()` statements of src/db/once-built.ts, whose values are all parameters too (it checks
 * that at each shape's first build); the first keyword; on failure the SQLSTATE. Not recorded:
 * parameter values, other `unsafe()` text (a migration, `create database`: it may inline a
 * value), error messages (PostgreSQL quotes the offending value in some), rows.
 */

/** The parts of postgres.js's Query (node_modules/postgres/src/query.js) this wrap uses. */
interface QueryInternals {
  /** The span of the traced handle that made the query (tracedSql). */
  [PARENT]?: Span;
  executed: boolean;
  tagged: boolean;
  /** `prepare: true` is what once-built.ts asks of its unsafe statements; other unsafe calls do not. */
  options?: { prepare?: boolean };
  /** Set when the query is built for the wire, before it is answered. */
  string?: string;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  handle(...args: unknown[]): unknown;
}

const PARENT = Symbol('offerdesk.parentSpan');
const SPAN_OF_HANDLE = Symbol('offerdesk.handleSpan');

/**
 * A handle like `sql` (a postgres.js pool, transaction or savepoint: a tagged-template function
 * with methods) whose queries carry `span` as their parent, as do the transactions and savepoints
 * it opens. Without a span, the handle marks nothing; it is made once per `sql` and kept.
 *
 * With tracing on, every caller gets such a handle, sampled or not (tracing.ts tracedSql says
 * why). Each is built the same way (traceHandle), so that code handed one sees one shape.
 */
export function tracedSql<Q extends object>(sql: Q, span: Span | undefined): Q {
  if (span) return traceHandle(sql, span);
  let unsampled = unsampledHandles.get(sql);
  if (!unsampled) {
    unsampled = traceHandle(sql, undefined);
    unsampledHandles.set(sql, unsampled);
  }
  return unsampled as Q;
}

/** The span-less handle of each `sql` (a pool lives as long as the process, a transaction less). */
const unsampledHandles = new WeakMap<object, object>();

type Handle = ((...args: unknown[]) => unknown) & Record<string | symbol, unknown>;

/**
 * A handle is the tagged-template function alone, its span as its one own property; everything
 * else it has comes from its prototype (handleMethods), whose prototype is `sql` itself. Setting a
 * prototype costs 0.05 µs a handle, where copying `sql`'s 19 properties onto it would cost 7 µs (a
 * sampled request makes one handle, and one more per transaction).
 */
function traceHandle<Q extends object>(sql: Q, span: Span | undefined): Q {
  const target = sql as unknown as Handle;
  const handle = ((...args: unknown[]) => mark(target(...args), span)) as Handle;
  Object.setPrototypeOf(handle, handleMethods(target));
  handle[SPAN_OF_HANDLE] = span;
  return handle as unknown as Q;
}

/** Every query gets the property, span or not: queries of one shape, as the handles are. */
function mark(query: unknown, span: Span | undefined): unknown {
  if (typeof query === 'object' && query !== null && 'executed' in query) (query as QueryInternals)[PARENT] = span;
  return query;
}

/** The prototype of `sql`'s handles, made once per `sql`. */
const methodsOfSql = new WeakMap<object, object>();

/**
 * `sql` (its json, array, types, ... by inheritance), with its methods that start queries or
 * transactions wrapped to carry the span of the handle they are called on (`this`).
 */
function handleMethods(target: Handle): object {
  let methods = methodsOfSql.get(target) as Handle | undefined;
  if (methods) return methods;
  methods = Object.create(target) as Handle;
  const spanOf = (self: unknown) => (self as Handle | undefined)?.[SPAN_OF_HANDLE] as Span | undefined;
  // `begin(fn)`, `begin(options, fn)`, `savepoint(fn)`, `savepoint(name, fn)`: the callback last.
  const inTraced = (method: (...args: unknown[]) => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      const span = spanOf(this);
      const work = args.at(-1);
      if (typeof work === 'function') args[args.length - 1] = (inner: object) => work(tracedSql(inner, span));
      return method(...args);
    };
  if (typeof target.begin === 'function') methods.begin = inTraced(target.begin as (...args: unknown[]) => unknown);
  if (typeof target.savepoint === 'function') methods.savepoint = inTraced(target.savepoint as (...args: unknown[]) => unknown);
  const unsafe = target.unsafe as (...args: unknown[]) => unknown;
  methods.unsafe = function (this: unknown, ...args: unknown[]) {
    return mark(unsafe(...args), spanOf(this));
  };
  const file = target.file as (...args: unknown[]) => unknown;
  methods.file = function (this: unknown, ...args: unknown[]) {
    return mark(file(...args), spanOf(this));
  };
  methodsOfSql.set(target, methods);
  return methods;
}

export function spanOfSql(sql: object): Span | undefined {
  return (sql as { [SPAN_OF_HANDLE]?: Span })[SPAN_OF_HANDLE];
}

let patched: { prototype: QueryInternals; handle: QueryInternals['handle'] } | undefined;

export function instrumentPostgres(probe: object, tracer: Tracer): void {
  const prototype = Object.getPrototypeOf(probe) as QueryInternals;
  if (patched || typeof prototype.handle !== 'function' || !('executed' in probe)) return;
  const handle = prototype.handle;
  patched = { prototype, handle };
  prototype.handle = function (this: QueryInternals, ...args: unknown[]) {
    if (!this.executed) startStatementSpan(this, tracer);
    return handle.apply(this, args);
  };
}

export function uninstrumentPostgres(): void {
  if (!patched) return;
  patched.prototype.handle = patched.handle;
  patched = undefined;
}

function startStatementSpan(query: QueryInternals, tracer: Tracer): void {
  const parent = query[PARENT];
  // Statements of an untraced handle (the worker's idle polling, an unsampled request) cost nothing.
  if (!parent) return;
  const attributes = { [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL };
  const span = tracer.startSpan('postgresql', { kind: SpanKind.CLIENT, attributes }, trace.setSpan(ROOT_CONTEXT, parent));
  const resolve = query.resolve;
  const reject = query.reject;
  query.resolve = (result) => {
    describe(span, query);
    span.end();
    resolve(result);
  };
  query.reject = (error) => {
    describe(span, query);
    const code = (error as { code?: unknown } | null)?.code;
    const sqlState = typeof code === 'string' && /^[0-9A-Z_]{1,40}$/.test(code) ? code : 'error';
    span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, sqlState);
    span.setAttribute(ATTR_ERROR_TYPE, sqlState);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    reject(error);
  };
}

function describe(span: Span, query: QueryInternals): void {
  const text = query.string;
  if (typeof text !== 'string') return;
  const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  if (operation) {
    span.updateName(operation);
    span.setAttribute(ATTR_DB_OPERATION_NAME, operation);
  }
  if (query.tagged || query.options?.prepare === true) span.setAttribute(ATTR_DB_QUERY_TEXT, text);
}
