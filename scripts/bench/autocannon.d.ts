// The part of autocannon 8's programmatic API the load generator uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    type Request = { method?: string; path?: string; headers?: Record<string, string> };
    type Options = { url: string; connections?: number; duration?: number; overallRate?: number; timeout?: number; requests?: Request[]; setupClient?: (client: { setRequests(requests: Request[]): void }) => void };
    type Result = { errors: number; timeouts: number; non2xx: number; duration: number };
    type Instance = EventEmitter & { stop(): void };
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
