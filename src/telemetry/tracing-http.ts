import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The server span of every request to the express app (part of the SDK side: loaded only with
 * tracing on). A caller's `traceparent` header continues its trace. The span is named by the
 * operation the router matches (nameRequest in tracing-sdk.ts, called from
 * src/http/openapi-router.ts), by the express route (/healthz, /readyz), or else by the method
 * alone, as OpenTelemetry's HTTP conventions ask when there is no route: never by the path, which
 * holds IDs. Its attributes: method, route, status. Not the path, the query or any header.
 */

/** Server spans made here: only they are renamed by the router (nameRequest). */
export const SERVER_SPANS = new WeakSet<Span>();

interface Traced {
  traceSpan?: Span;
}

export function requestSpanMiddleware(tracer: Tracer): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method } }, parent);
    (res.locals as Traced).traceSpan = span;
    if (span.isRecording()) SERVER_SPANS.add(span);
    res.once('finish', endSpan);
    res.once('close', endSpan);
    context.with(trace.setSpan(parent, span), next);
  };
}

/** The `finish` (answered) or else `close` (client gone) listener of every response, made once. */
function endSpan(this: Response): void {
  const locals = this.locals as Traced;
  const span = locals.traceSpan;
  if (!span) return;
  locals.traceSpan = undefined;
  if (span.isRecording()) {
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
  }
  span.end();
}
