import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** Tracing's configuration: the standard OTEL_* variables only (docs/operations.md "Tracing"). */

const tracing = (env: Record<string, string>) => loadConfig(env).tracing;

describe('tracing configuration', () => {
  it('is off unless an OTLP endpoint or the otlp exporter is named', () => {
    expect(tracing({}).enabled).toBe(false);
    expect(tracing({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' }).enabled).toBe(false);
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).enabled).toBe(true);
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }).enabled).toBe(true);
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ enabled: true, tracesUrl: 'http://localhost:4318/v1/traces' });
  });

  it('is turned off by OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true whatever else is set', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
  });

  it('posts to <endpoint>/v1/traces, or to the traces endpoint exactly as given', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).tracesUrl).toBe('http://127.0.0.1:4318/v1/traces');
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4318/otlp' }).tracesUrl).toBe('https://collector.internal:4318/otlp/v1/traces');
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' }).tracesUrl,
    ).toBe('http://b:9999/custom');
  });

  it('reads the sampler, its ratio, the protocol, the service name and resource attributes', () => {
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'offerdesk-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,team=in%20tegration',
      }),
    ).toEqual({
      enabled: true,
      tracesUrl: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/json',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.1,
      serviceName: 'offerdesk-eu',
      resourceAttributes: { 'deployment.environment.name': 'prod', team: 'in tegration' },
    });
    expect(tracing({})).toMatchObject({ protocol: 'http/protobuf', sampler: 'parentbased_always_on', samplerRatio: 1, serviceName: 'offerdesk' });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER must be otlp or none/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/],
    [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_TRACES_SAMPLER_ARG: 'ten percent' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, /OTEL_RESOURCE_ATTRIBUTES must be key=value pairs/],
  ])('refuses %j with one line saying what to fix', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
