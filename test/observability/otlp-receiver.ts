import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OTLP/HTTP metrics endpoint for tests, on loopback: records every JSON export POSTed to
 * /v1/metrics and answers as a collector does (200, an empty partial-success object).
 */
export interface OtlpExport {
  resourceMetrics: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeMetrics: { metrics: OtlpMetric[] }[];
  }[];
}

export interface OtlpMetric {
  name: string;
  sum?: { isMonotonic: boolean; dataPoints: OtlpPoint[] };
  gauge?: { dataPoints: OtlpPoint[] };
  histogram?: { dataPoints: (OtlpPoint & { explicitBounds: number[]; bucketCounts: (number | string)[]; count: number | string; sum: number })[] };
}

export interface OtlpPoint {
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string; doubleValue?: number } }[];
  asDouble?: number;
  asInt?: number | string;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:PORT, the OTEL_EXPORTER_OTLP_ENDPOINT to give. */
  endpoint: string;
  exports: OtlpExport[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/metrics' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The metric `name` of one export, or undefined. */
export function metricOf(exported: OtlpExport, name: string): OtlpMetric | undefined {
  return exported.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)).find((m) => m.name === name);
}

/** A point's attribute as text. */
export function attribute(point: OtlpPoint, key: string): string | undefined {
  return point.attributes.find((a) => a.key === key)?.value.stringValue;
}

export function pointValue(point: OtlpPoint): number {
  return Number(point.asDouble ?? point.asInt);
}
