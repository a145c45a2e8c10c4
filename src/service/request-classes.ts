import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { ServerClasses } from '../http-server.js';

/**
 * Classes for the HTTP server to make `app`'s requests and responses with (createHttpServer), so
 * that express does not change their prototype on every request.
 *
 * Why: express gives each request and response its app's prototypes (`app.request`,
 * `app.response`) with Object.setPrototypeOf when the request enters the app. An object whose
 * prototype changes after it was made loses the shape V8 had learnt for it, and Node's own HTTP
 * code then runs slower on it for the rest of the request. Keeping the prototype saves 37% of one
 * offer's stack time (docs/performance.md "Tuning kept in the service").
 *
 * Each prototype becomes a class's: the class extends Node's, its prototype holds what express's
 * held (the `app` property, over express's methods, over Node's), and the app takes it as its
 * `app.request` / `app.response`. A request the server makes as an instance of the class already
 * has the prototype express sets, and V8 leaves an object alone when it is given the prototype it
 * has. Requests made by any other server get it from express the usual way.
 *
 * Call it on a new app, before anything is mounted on it: a mounted express app links its own
 * prototypes to its parent's when it is mounted.
 */
export function requestClasses(app: Express): ServerClasses {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  app.request = adopt(AppRequest.prototype, app.request, IncomingMessage) as unknown as Request;
  app.response = adopt(AppResponse.prototype, app.response, ServerResponse) as unknown as Response;
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
}

/** Makes `target` what `prototype` is: the same own properties over the same prototype. */
function adopt(target: object, prototype: object, base: typeof IncomingMessage | typeof ServerResponse): object {
  if (!Object.prototype.isPrototypeOf.call(base.prototype, prototype)) {
    throw new TypeError(`express's ${base.name} prototype does not inherit from Node's`);
  }
  Object.setPrototypeOf(target, Object.getPrototypeOf(prototype));
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(prototype));
  return target;
}
