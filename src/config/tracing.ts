import { ConfigError, type Env } from './values.js';

/**
 * Tracing (docs/operations.md "Tracing"): OpenTelemetry traces, configured only by the standard
 * OTEL_* variables of the OpenTelemetry specification. Off unless OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp is set; off, the SDK is never
 * loaded (src/telemetry/tracing.ts).
 *
 * What decides whether and how spans are made is read and checked here. What only shapes the
 * export of finished spans (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE and
 * their _TRACES_ variants; OTEL_BSP_* of the batch processor) is read by the SDK itself from the
 * environment: its OTLP exporter merges that environment into every configuration it is given
 * (otlp-exporter-base, getNodeHttpConfigurationFromEnvironment), so reading them here too would
 * be a second, diverging copy. The headers may hold a collector's token: they never pass through
 * Config, and so never reach a log line.
 */

export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** OTLP over HTTP in either encoding; gRPC would need a second exporter and its native stack. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The specification's default collector address, when only OTEL_TRACES_EXPORTER=otlp is given. */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = '/v1/traces';

export interface TracingConfig {
  enabled: boolean;
  /** Where spans are posted: the traces endpoint, `/v1/traces` included. */
  tracesUrl: string;
  protocol: OtlpProtocol;
  sampler: TraceSampler;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the traceidratio samplers, 0 to 1. */
  samplerRatio: number;
  /** OTEL_SERVICE_NAME, or `offerdesk`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES as key/value pairs (percent-decoded). */
  resourceAttributes: Record<string, string>;
}

export function loadTracingConfig(env: Env): TracingConfig {
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter !== '' && exporter !== 'otlp' && exporter !== 'none') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  }
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const disabled = /^true$/i.test((env.OTEL_SDK_DISABLED ?? '').trim());
  const enabled = !disabled && exporter !== 'none' && (exporter === 'otlp' || specific !== undefined || general !== undefined);

  // The specification: the signal's own endpoint is used as given; the general one gets /v1/traces.
  const tracesUrl = specific
    ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific)
    : `${checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', general ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, '')}${TRACES_PATH}`;

  return {
    enabled,
    tracesUrl,
    protocol: protocol(env),
    sampler: sampler(env),
    samplerRatio: ratio(env),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'offerdesk',
    resourceAttributes: resourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES),
  };
}

function checkedUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// address, got "${raw}"`);
  }
  if (!/^https?:$/.test(url.protocol)) throw new ConfigError(`${name} must be an http:// or https:// address, got "${raw}"`);
  return raw.trim();
}

function protocol(env: Env): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${OTLP_PROTOCOLS.join(', ')}, got "${env[name]}"`);
  }
  return raw as OtlpProtocol;
}

function sampler(env: Env): TraceSampler {
  const raw = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase();
  if (raw === '') return 'parentbased_always_on';
  if (!(TRACE_SAMPLERS as readonly string[]).includes(raw)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`);
  }
  return raw as TraceSampler;
}

function ratio(env: Env): number {
  const raw = (env.OTEL_TRACES_SAMPLER_ARG ?? '').trim();
  if (raw === '') return 1;
  const value = Number(raw);
  if (!/^[0-9.eE+-]+$/.test(raw) || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  }
  return value;
}

/** `key=value,key2=value2`, values percent-encoded (W3C Baggage octets), as the specification says. */
function resourceAttributes(raw: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (!raw?.trim()) return attributes;
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at <= 0 || key === '') throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, got "${pair.trim()}"`);
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES: the value of "${key}" is not valid percent-encoding`);
    }
  }
  return attributes;
}
