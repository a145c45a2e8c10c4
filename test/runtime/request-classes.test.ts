import type { AddressInfo } from 'node:net';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createHttpServer, listen, type ServerClasses } from '../../src/http-server.js';
import { requestClasses } from '../../src/service/request-classes.js';

// src/service/request-classes.ts: the server makes an express app's requests and responses with
// the prototypes express gives them, so express's Object.setPrototypeOf on entry changes nothing.

const limits = loadConfig({}).http;
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(made: Server): Promise<string> {
  server = await listen(made, 0, '127.0.0.1');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An app on the classes, with a listener in front that records each request's prototypes as the server made them. */
function appWithClasses() {
  const app = express();
  const classes = requestClasses(app);
  const made: Array<{ request: boolean; response: boolean }> = [];
  app.get('/things/:id', (req, res) => {
    res.locals.seen = req.get('x-thing');
    res
      .status(201)
      .set('X-Path', req.path)
      .json({ id: req.params.id, seen: res.locals.seen, sameApp: req.app === app && res.app === app });
  });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    made.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
    app(req, res);
  };
  return { app, classes, listener, made };
}

describe("an express app's request classes", () => {
  it('make requests and responses with the prototypes express gives them, and express answers as usual', async () => {
    const { classes, listener, made } = appWithClasses();
    const origin = await serve(createHttpServer(listener, limits, classes));
    for (const id of ['a', 'b']) {
      const res = await fetch(`${origin}/things/${id}`, { headers: { 'X-Thing': `thing ${id}` } });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-path')).toBe(`/things/${id}`);
      expect(await res.json()).toEqual({ id, seen: `thing ${id}`, sameApp: true });
    }
    expect(made).toEqual([
      { request: true, response: true },
      { request: true, response: true },
    ]);
  });

  it("are Node's requests and responses: bodies stream in, unknown paths get express's 404", async () => {
    const { app, classes } = appWithClasses();
    app.post('/echo', (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => res.type('text').send(`got ${body}: ${String(req instanceof IncomingMessage && res instanceof ServerResponse)}`));
    });
    const origin = await serve(createHttpServer(app, limits, classes));
    expect(await (await fetch(`${origin}/echo`, { method: 'POST', body: 'hello' })).text()).toBe('got hello: true');
    expect((await fetch(`${origin}/nothing-here`)).status).toBe(404);
  });

  it("leave another server's requests to express, which gives them the same prototypes", async () => {
    const { listener, made } = appWithClasses();
    const origin = await serve(createServer(listener));
    const res = await fetch(`${origin}/things/c`, { headers: { 'X-Thing': 'c' } });
    expect(await res.json()).toEqual({ id: 'c', seen: 'c', sameApp: true });
    expect(made).toEqual([{ request: false, response: false }]);
  });

  it('are subclasses of Node\'s own', () => {
    const { classes }: { classes: ServerClasses } = appWithClasses();
    expect(classes.IncomingMessage.prototype).toBeInstanceOf(IncomingMessage);
    expect(classes.ServerResponse.prototype).toBeInstanceOf(ServerResponse);
  });
});
