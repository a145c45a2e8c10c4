import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Request, Response } from 'express';
import type { RootDecisions } from './tracing-roots.js';
import type { RoutedRequest, RoutedResponse } from './tracing-types.js';

/**
 * The server span of every request to the express app (part of the SDK side: loaded only with
 * tracing on). A caller's `traceparent` header continues its trace. The span is named by the
 * operation the router matches (nameServerSpan below, called through src/http/openapi-router.ts),
 * by the express route (/healthz, /readyz), or else by the method alone, as OpenTelemetry's HTTP
 * conventions ask when there is no route: never by the path, which holds IDs. Its attributes:
 * method, route, status. Not the path, the query or any header.
 *
 * The span is kept on `res.locals`, not in a context (tracing.ts withSpan says why): the handlers
 * read it there (requestSpan) to trace their statements, and the request log for its line.
 */

interface Traced {
  /** The request's server span, when the sampler kept the request; ended with the response. */
  traceSpan?: Span;
}

export function requestSpan(res: RoutedResponse): Span | undefined {
  return (res.locals as Traced).traceSpan;
}

/** The router's naming (tracing.ts nameRequestSpan): the span of a recorded request, by its operation. */
export function nameServerSpan(req: RoutedRequest, res: RoutedResponse, operationId: string, path: string): void {
  const span = (res.locals as Traced).traceSpan;
  if (!span?.isRecording()) return;
  span.updateName(operationId);
  span.setAttribute(ATTR_HTTP_ROUTE, `${req.baseUrl}${path}`);
}

/** Starts a request's server span (tracing.ts startRequestSpan, called by the request log's middleware). */
export function requestSpanStarter(tracer: Tracer, roots: RootDecisions): (req: Request, res: Response) => void {
  const start = (req: Request, parent: Context) =>
    tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method } }, parent);
  return (req: Request, res: Response) => {
    // A caller's traceparent (the only header the registered W3C propagator makes a parent of)
    // continues its trace; without one the request starts a trace, which the sampler decides
    // before the span is made (RootDecisions).
    const span =
      req.headers.traceparent === undefined
        ? roots.startKept(req.method, SpanKind.SERVER, () => start(req, ROOT_CONTEXT))
        : start(req, propagation.extract(ROOT_CONTEXT, req.headers));
    // A request the sampler left out costs its sampling decision and nothing more: no
    // listeners, no statement spans.
    if (!span?.isRecording()) return;
    (res.locals as Traced).traceSpan = span;
    // Every response emits `close` last, answered (right after `finish`) or not (client gone).
    res.once('close', endSpan);
  };
}

/** The `close` listener of every traced response, made once. */
function endSpan(this: Response): void {
  const span = (this.locals as Traced).traceSpan;
  if (!span?.isRecording()) return;
  // An express route (/healthz, /readyz) names the span; the router's operations named theirs.
  const route = (this.req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') {
    span.updateName(`${this.req.method} ${route}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route);
  }
  if (this.writableFinished) {
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, this.statusCode);
    if (this.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the answer was sent' });
  }
  span.end();
}
