import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus instruments (docs/operations.md "Metrics"), one registry per process,
 * served by metrics-server.ts and, with an OTLP endpoint, pushed by metrics-otlp.ts. Every label is a closed set: methods, routes (operationIds and a
 * few fixed names), status codes, outcomes and states; never an endpoint, workspace or offer id.
 * prom-client rather than the OpenTelemetry SDK: exact family names (the OpenTelemetry exporter
 * rewrites names and adds scope labels) and the runtime's process metrics built in.
 */
export const metricsRegistry = new Registry();

/** How one webhook attempt ended, as src/webhooks/engine/attempt-metrics.ts classifies it. */
export const ATTEMPT_OUTCOMES = [
  'success',
  'http_error',
  'timeout',
  'connection_error',
  'tls_error',
  'address_refused',
  'reply_error',
  'internal_error',
] as const;
export type AttemptOutcomeLabel = (typeof ATTEMPT_OUTCOMES)[number];

/** openapi.yaml "Limits": the per-key and the per-IP limit. */
export const RATE_LIMITS = ['key', 'ip'] as const;
export type RateLimitLabel = (typeof RATE_LIMITS)[number];

/**
 * What became of one mail: handed over, to be tried again, refused for good, or unconfirmed (sent
 * in full, but the server's verdict never came; not sent again, so never twice).
 */
export const MAIL_OUTCOMES = ['sent', 'retry', 'refused', 'unconfirmed'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

const SECOND_BUCKETS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** docs/webhook-delivery.md "Limits": an attempt ends within 10 s; buckets past it show a late outcome write. */
const SECOND_BUCKETS_ATTEMPT = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 7.5, 10, 15];
const SECOND_BUCKETS_LAG = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800];
/** From the commit to the first 2xx, through the retry pauses of openapi.yaml "Webhook delivery and retries" (1 m, 5 m, 30 m, 2 h, 5 h, 8 h). */
const SECOND_BUCKETS_END_TO_END = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 1800, 3600, 7200, 21600, 86400];

const registers = [metricsRegistry];

const httpDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests to the API, console and probes, by method, route (operationId or fixed name) and status.',
  labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
  buckets: SECOND_BUCKETS_HTTP,
  registers,
});

const attempts = new Counter({
  name: 'offerdesk_webhook_attempts_total',
  help: 'Webhook attempts made by this process, by outcome.',
  labelNames: ['outcome'] as const,
  registers,
});

const attemptDuration = new Histogram({
  name: 'offerdesk_webhook_attempt_duration_seconds',
  help: 'Duration of webhook attempts (address check, connect, request, reply), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: SECOND_BUCKETS_ATTEMPT,
  registers,
});

const deliveryLag = new Histogram({
  name: 'offerdesk_webhook_delivery_lag_seconds',
  help: 'From when a webhook attempt was due to when it started.',
  buckets: SECOND_BUCKETS_LAG,
  registers,
});

const endToEnd = new Histogram({
  name: 'offerdesk_webhook_end_to_end_seconds',
  help: "From the event's commit to its first 2xx reply (events on their own schedule; not tests or resends).",
  buckets: SECOND_BUCKETS_END_TO_END,
  registers,
});

const rateLimited = new Counter({
  name: 'offerdesk_rate_limited_total',
  help: 'API requests answered 429, by the limit that refused them.',
  labelNames: ['limit'] as const,
  registers,
});

const mailSent = new Counter({
  name: 'offerdesk_mail_sent_total',
  help: 'Mails handed to the SMTP server, by outcome.',
  labelNames: ['outcome'] as const,
  registers,
});

// These two are registered on first use: a process without a worker (serve --no-worker) or never
// asked /readyz (a worker) exports no sample, rather than a 0 that reads as "silent" or "not ready".
let workerLastRound: Gauge | undefined;
let ready: Gauge | undefined;

// Every closed label value is exported from the start at 0, so rates and ratios have a series to
// work on before the first failure.
for (const outcome of ATTEMPT_OUTCOMES) {
  attempts.inc({ outcome }, 0);
  attemptDuration.zero({ outcome });
}
for (const limit of RATE_LIMITS) rateLimited.inc({ limit }, 0);
for (const outcome of MAIL_OUTCOMES) mailSent.inc({ outcome }, 0);

/** Method names outside HTTP's registered ones are one value (OpenTelemetry's convention). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const httpMethod = KNOWN_METHODS.has(method) ? method : '_OTHER';
  httpDuration.observe({ http_request_method: httpMethod, http_route: route, http_response_status_code: status }, seconds);
}

export function observeWebhookAttempt(outcome: AttemptOutcomeLabel, seconds: number): void {
  attempts.inc({ outcome });
  attemptDuration.observe({ outcome }, seconds);
}

export function observeDeliveryLag(seconds: number): void {
  deliveryLag.observe(Math.max(0, seconds));
}

export function observeEndToEnd(seconds: number): void {
  endToEnd.observe(Math.max(0, seconds));
}

export function countRateLimited(limit: RateLimitLabel): void {
  rateLimited.inc({ limit });
}

/** For the mailer: one call per mail handed to (or refused by) the SMTP server. */
export function countMailOutcome(outcome: MailOutcome): void {
  mailSent.inc({ outcome });
}

export function markWorkerRound(atMs: number): void {
  workerLastRound ??= new Gauge({
    name: 'offerdesk_worker_last_round_timestamp_seconds',
    help: "Unix time of this process's webhook worker's last claim round that finished without an error.",
    registers,
  });
  workerLastRound.set(atMs / 1000);
}

export function markReadiness(isReady: boolean): void {
  ready ??= new Gauge({
    name: 'offerdesk_ready',
    help: 'The last /readyz verdict of this process: 1 ready, 0 not ready (absent until /readyz is asked).',
    registers,
  });
  ready.set(isReady ? 1 : 0);
}

let processMetrics = false;

/** The runtime's CPU, memory, heap, handles and event-loop delay; once per process, when served. */
export function enableProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
