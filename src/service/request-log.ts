import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log.js';
import { reply } from '../api/errors.js';
import { observeHttpRequest } from '../telemetry/metrics.js';
import { requestLogFields, startRequestSpan } from '../telemetry/tracing.js';
import { httpRoute } from './http-route.js';

/**
 * The request log and the response deadline, written to cost little per request: one `finish`
 * listener that is a shared function (no closure per request), and no timer per request. These
 * two run on every request, so what they allocate is paid on every request.
 */

/** A request under a deadline, in a list kept in start order (all deadlines are equally long). */
interface Pending {
  req: Request;
  res: Response;
  /** performance.now() at which the request passes its deadline. */
  due: number;
  prev: Pending | null;
  next: Pending | null;
}

/** What the log and the deadline keep on `res.locals` between the start and the end of a request. */
interface Tracked {
  requestId: string;
  started: bigint;
  clientIp: string | undefined;
  deadline?: Pending;
  deadlines?: Deadlines;
}

/**
 * No request waits without bound: one that has no answer after `ms` (a database connection that
 * never answers, a pool that never frees) gets the 500 `internal_error` of openapi.yaml "Errors", with whatever
 * RateLimit-* headers it already has. The handler may still finish; its late answer is dropped.
 *
 * Every deadline is `ms` after its request started, so the pending requests, kept in start order,
 * are also in deadline order: one timer, set for the earliest, serves them all, and a request that
 * is answered leaves the list in constant time. A request whose client went away is not answered;
 * it leaves the list when its deadline comes.
 */
class Deadlines {
  private first: Pending | null = null;
  private last: Pending | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly logger: Logger,
  ) {}

  add(req: Request, res: Response): Pending {
    const entry: Pending = { req, res, due: performance.now() + this.ms, prev: this.last, next: null };
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    if (this.timer === undefined) this.arm(this.ms);
    return entry;
  }

  remove(entry: Pending): void {
    if (entry.prev) entry.prev.next = entry.next;
    else if (this.first === entry) this.first = entry.next;
    else return; // already removed
    if (entry.next) entry.next.prev = entry.prev;
    else this.last = entry.prev;
    entry.prev = entry.next = null;
  }

  private arm(delayMs: number): void {
    // The in-flight request's socket keeps the process alive; the timer alone need not.
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(delayMs))).unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.first && this.first.due <= now) {
      const entry = this.first;
      this.remove(entry);
      this.pass(entry);
    }
    if (this.first) this.arm(this.first.due - now);
  }

  private pass({ req, res }: Pending): void {
    // Closed by the client (no answer is possible), or answered already: nothing to do.
    if (res.destroyed || res.headersSent) return;
    this.logger.error({ requestId: res.locals.requestId, path: req.path, deadlineMs: this.ms }, 'request passed its deadline');
    reply.internalError(res);
  }
}

/**
 * One JSON line per request, with a request id that is also returned to the caller. The client's
 * address is read once here (`res.locals.clientIp`) for the log and for the per-IP limit: with
 * `trust proxy` off it is the socket's address, which is what Express's `req.ip` returns then
 * (without parsing X-Forwarded-For to drop it); otherwise it is `req.ip`. With tracing on, the
 * request's server span starts here too (startRequestSpan says why not in a middleware of its own).
 */
export function requestLog(logger: Logger, trustsProxy: boolean) {
  // The `finish` listener of every response (`this` is the response), made once.
  function logFinished(this: Response): void {
    const locals = this.locals as Tracked;
    if (locals.deadline) locals.deadlines!.remove(locals.deadline);
    const req = this.req;
    const durationMs = Number(process.hrtime.bigint() - locals.started) / 1e6;
    observeHttpRequest(req.method, httpRoute(req, this), this.statusCode, durationMs / 1000);
    const line: Record<string, unknown> = {
      requestId: locals.requestId,
      method: req.method,
      path: req.path,
      status: this.statusCode,
      durationMs,
      ip: locals.clientIp,
    };
    // With tracing on, the line of a request the sampler kept carries its trace_id and span_id.
    const trace = requestLogFields(this);
    logger.info(trace ? Object.assign(line, trace) : line, 'request');
  }
  return (req: Request, res: Response, next: NextFunction) => {
    startRequestSpan(req, res);
    const locals = res.locals as Tracked;
    locals.started = process.hrtime.bigint();
    const requestId = randomUUID();
    locals.requestId = requestId;
    locals.clientIp = trustsProxy ? req.ip : req.socket.remoteAddress;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', logFinished);
    next();
  };
}

/** Puts a request under the response deadline (the API's requests, app.ts). */
export function responseDeadline(ms: number, logger: Logger): (req: Request, res: Response) => void {
  const deadlines = new Deadlines(ms, logger);
  return (req, res) => {
    const locals = res.locals as Tracked;
    locals.deadlines = deadlines;
    locals.deadline = deadlines.add(req, res);
  };
}
