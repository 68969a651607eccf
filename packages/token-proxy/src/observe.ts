/**
 * What an operations team reads off the token proxy, built on its `onEvent` hook: Prometheus text metrics
 * (`createProxyMetrics`) and one JSON line per request (`createJsonLog`). Neither sees more than the event holds:
 * never a token, code, cookie, key or secret. Runtime-free: no `node:` import.
 */
import type { TokenProxyEvent, TokenProxyOutcome } from './event.js';

/** Seconds: the upper bounds of the upstream latency histogram's buckets. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const ROUTES = new Set(['/login', '/callback', '/login/done', '/login/status', '/token', '/revoke']);
const OUTCOMES = new Set<TokenProxyOutcome>(['ok', 'rejected', 'rate_limited', 'store_unavailable', 'upstream_error', 'error']);

export interface ProxyMetrics {
  /** Give it to the proxy's `onEvent` (alone or through `combineEvents`). */
  onEvent(event: TokenProxyEvent): void;
  /** The metrics in the Prometheus text format (0.0.4). */
  render(): string;
  /** A Fetch handler answering `render()` as `text/plain; version=0.0.4`: mount it where only the scraper reaches. */
  fetch(request: Request): Response;
}

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/**
 * Counters kept in this process (Prometheus sums replicas): requests by route and outcome, refreshes made at the
 * service, answers replayed or shared, answers from the session's cached access token, the proxy's own 429s, store
 * failures, and a histogram of the time each request waited for the service, by request type.
 */
export function createProxyMetrics(options: { prefix?: string } = {}): ProxyMetrics {
  const prefix = options.prefix ?? 'esign_proxy_';
  const requests = new Map<string, number>();
  const latency = new Map<string, Histogram>();
  let refreshes = 0;
  let replays = 0;
  let cached = 0;
  let limited = 0;
  let storeErrors = 0;
  const started = Date.now();

  const onEvent = (event: TokenProxyEvent): void => {
    // labels come from fixed sets only: a bounded number of series whatever requests arrive
    const route = ROUTES.has(event.route) ? event.route : 'other';
    const outcome = OUTCOMES.has(event.outcome) ? event.outcome : 'error';
    const key = `route="${route}",outcome="${outcome}"`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    if (event.refreshed) refreshes++;
    if (event.replayed) replays++;
    if (event.cached) cached++;
    if (event.rateLimited) limited++;
    if (event.outcome === 'store_unavailable') storeErrors++;
    if (event.upstreamMs !== undefined) {
      let histogram = latency.get(event.type);
      if (!histogram) latency.set(event.type, (histogram = { counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 }));
      const seconds = event.upstreamMs / 1000;
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]!) histogram.counts[i]!++;
      histogram.sum += seconds;
      histogram.count++;
    }
  };

  const render = (): string => {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${prefix}${name} ${help}`, `# TYPE ${prefix}${name} counter`, `${prefix}${name} ${value}`);
    };
    lines.push(`# HELP ${prefix}requests_total Requests to the proxy's routes by route and outcome.`, `# TYPE ${prefix}requests_total counter`);
    for (const [labels, value] of requests) lines.push(`${prefix}requests_total{${labels}} ${value}`);
    counter('service_refreshes_total', 'Refresh-token grants this process sent to the service.', refreshes);
    counter('refresh_replays_total', "Refresh answers served from another request's call (shared in flight or replayed after a lost answer).", replays);
    counter('cached_answers_total', "Token answers served from the session's cached access token, without a call to the service.", cached);
    counter('rate_limited_total', "Requests refused by the proxy's own rate limit (429).", limited);
    counter('store_errors_total', 'Requests answered 503 because the shared store did not answer.', storeErrors);
    lines.push(
      `# HELP ${prefix}upstream_duration_seconds Time a request waited for the service, by request type.`,
      `# TYPE ${prefix}upstream_duration_seconds histogram`,
    );
    for (const [type, histogram] of latency) {
      LATENCY_BUCKETS.forEach((bound, i) => lines.push(`${prefix}upstream_duration_seconds_bucket{type="${type}",le="${bound}"} ${histogram.counts[i]}`));
      lines.push(
        `${prefix}upstream_duration_seconds_bucket{type="${type}",le="+Inf"} ${histogram.count}`,
        `${prefix}upstream_duration_seconds_sum{type="${type}"} ${histogram.sum}`,
        `${prefix}upstream_duration_seconds_count{type="${type}"} ${histogram.count}`,
      );
    }
    lines.push(
      `# HELP ${prefix}start_time_seconds When this process's counters started.`,
      `# TYPE ${prefix}start_time_seconds gauge`,
      `${prefix}start_time_seconds ${Math.floor(started / 1000)}`,
    );
    return `${lines.join('\n')}\n`;
  };

  return {
    onEvent,
    render,
    fetch: (request) =>
      request.method === 'GET' || request.method === 'HEAD'
        ? new Response(request.method === 'HEAD' ? null : render(), {
            headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' },
          })
        : new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } }),
  };
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface JsonLog {
  /** One line per request, at `info` (`warn` for 429, 502, 503, 504; `error` for 500). */
  onEvent(event: TokenProxyEvent): void;
  /** A line of the proxy's own (start-up, shutdown); `fields` must hold nothing secret. */
  log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, string | number | boolean | undefined>): void;
  /** Whether a line at this level is written. */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
}

/**
 * One JSON object per line (`time`, `level`, `msg`, then the fields), written by `write` (default: console.log).
 * A request's line holds the event's fields only: route, method, status, outcome, error code, request id,
 * duration, upstream time, type, mode, cached/replayed/refreshed. Below `level` nothing is built at all.
 */
export function createJsonLog(options: { level?: LogLevel; write?: (line: string) => void } = {}): JsonLog {
  const threshold = RANK[options.level ?? 'info'];
  if (threshold === undefined) throw new TypeError(`level must be one of ${LOG_LEVELS.join(', ')}`);
  const write = options.write ?? ((line: string) => console.log(line));
  const enabled = (level: Exclude<LogLevel, 'silent'>): boolean => RANK[level] >= threshold;
  const log: JsonLog['log'] = (level, msg, fields = {}) => {
    if (!enabled(level)) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  };
  return {
    enabled,
    log,
    onEvent: (event) => {
      const level =
        event.status >= 500 && event.status !== 502 && event.status !== 503 && event.status !== 504
          ? 'error'
          : event.status === 429 || event.status >= 500
            ? 'warn'
            : 'info';
      if (!enabled(level)) return;
      log(level, 'request', {
        requestId: event.requestId,
        method: event.method,
        route: event.route,
        type: event.type,
        status: event.status,
        outcome: event.outcome,
        error: event.error,
        durationMs: event.durationMs,
        upstreamMs: event.upstreamMs,
        mode: event.mode,
        cached: event.cached,
        replayed: event.replayed,
        refreshed: event.refreshed,
      });
    },
  };
}

/** One `onEvent` that calls each of `observers` in turn (an observer that throws does not stop the others). */
export function combineEvents(...observers: Array<((event: TokenProxyEvent) => void) | undefined>): ((event: TokenProxyEvent) => void) | undefined {
  const present = observers.filter((observer): observer is (event: TokenProxyEvent) => void => observer !== undefined);
  if (present.length <= 1) return present[0];
  return (event) => {
    for (const observer of present) {
      try {
        observer(event);
      } catch {
        // one observer's failure is not another's
      }
    }
  };
}
