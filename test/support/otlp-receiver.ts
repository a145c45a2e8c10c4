import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenTelemetry collector's OTLP/HTTP traces receiver, in the test process (real HTTP over a
 * socket): it takes what the service's exporter posts to /v1/traces in the JSON encoding
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps every span, flattened, for the test to read.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  events: { name: string; attributes: Record<string, unknown> }[];
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:PORT` (the exporter adds /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests that were not OTLP JSON (kept so a test can see they happened). */
  unreadable: number;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let unreadable = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: any[] }[] }[];
        };
        for (const resourceSpans of request.resourceSpans ?? []) {
          const resource = attributes(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributes(span.attributes),
                links: (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId, attributes: attributes(link.attributes) })),
                status: span.status ?? {},
                events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: attributes(event.attributes) })),
                resource,
              });
            }
          }
        }
      } catch {
        unreadable += 1;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get unreadable() {
      return unreadable;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
