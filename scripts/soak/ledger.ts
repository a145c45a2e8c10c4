import { Webhook } from 'standardwebhooks';

/**
 * What the soak owes and what arrived: webhook events per endpoint (by offer and type, each once
 * per offer in the soak's flows), mails per recipient and kind, and every answer of the API and
 * the console with its time, to be set against the fault windows at the end.
 */

export type EndpointKind = 'ok' | 'flaky' | 'slow' | 'gone';

export interface EndpointInfo {
  path: string;
  kind: EndpointKind;
  secret: string;
  workspace: number;
}

export interface FaultWindow {
  name: string;
  startedAt: number;
  endedAt: number | null;
  /** For how long after its end a 5xx is still put down to it; 0: it explains none. */
  explainsMs: number;
}


interface Arrival {
  /** 2xx answers the receiver gave for this event at this endpoint. */
  delivered: number;
  /** Requests of any answer. */
  requests: number;
  webhookIds: Set<string>;
}

export class Ledger {
  readonly endpoints = new Map<string, EndpointInfo>();
  private readonly verifiers = new Map<string, Webhook>();
  /** `${path} ${offerId}/${type}` -> arrival. */
  readonly arrivals = new Map<string, Arrival>();
  /** `${path} ${offerId}/${type}` owed to an endpoint that must get it. */
  readonly owed = new Set<string>();
  eventsCommitted = 0;
  actionsFailed = 0;
  requests = 0;
  delivered = 0;
  badSignatures = 0;
  missingWebhookIds = 0;
  /** Arrivals that no action of the soak explains (an action whose commit was in doubt). */
  unowedArrivals = 0;
  goneAttempts = 0;
  /** Attempts in flight each time a worker was killed or its session terminated. */
  readonly inFlightAtKills: number[] = [];
  /** Requests at the receiver not answered yet. */
  openRequests = 0;
  private readonly recentAnswers: number[] = [];

  /** Mails: `${kind} ${recipient}` -> count owed / arrived. */
  readonly mailsOwed = new Map<string, number>();
  readonly mailsArrived = new Map<string, number>();
  /** Requests whose answer was lost (a timeout): their mail may or may not be owed. */
  readonly mailsInDoubt = new Map<string, number>();
  otherMails = 0;

  readonly answers: { at: number; status: number; surface: 'api' | 'console' }[] = [];
  readonly statusCounts = { api: {} as Record<string, number>, console: {} as Record<string, number> };
  readonly faults: FaultWindow[] = [];

  addEndpoint(info: EndpointInfo): void {
    this.endpoints.set(info.path, info);
    this.verifiers.set(info.path, new Webhook(info.secret));
  }

  /** An action committed: its event is owed to every endpoint of the workspace that must get it. */
  owe(workspacePaths: string[], offerId: string, type: string): void {
    this.eventsCommitted++;
    for (const path of workspacePaths) {
      if (this.endpoints.get(path)?.kind !== 'gone') this.owed.add(`${path} ${offerId}/${type}`);
    }
  }

  /** A webhook request at the receiver: checked, counted; returns the endpoint's kind. */
  received(path: string, headers: Record<string, string>, body: Buffer): EndpointKind | undefined {
    this.requests++;
    const info = this.endpoints.get(path);
    const text = body.toString('utf8');
    const id = headers['webhook-id'];
    if (!id) this.missingWebhookIds++;
    try {
      this.verifiers.get(path)!.verify(text, headers);
    } catch {
      this.badSignatures++;
    }
    return info?.kind;
  }

  /** The receiver answered `status` to this request. */
  answered(path: string, headers: Record<string, string>, body: Buffer, status: number): void {
    const now = Date.now();
    this.recentAnswers.push(now);
    while (this.recentAnswers.length > 0 && this.recentAnswers[0]! < now - 1_000) this.recentAnswers.shift();
    const info = this.endpoints.get(path);
    if (info?.kind === 'gone') {
      this.goneAttempts++;
      return;
    }
    let parsed: { id?: string; type?: string; data?: { offer?: { id?: string } } };
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    const key = `${path} ${parsed.data?.offer?.id}/${parsed.type}`;
    let arrival = this.arrivals.get(key);
    if (!arrival) this.arrivals.set(key, (arrival = { delivered: 0, requests: 0, webhookIds: new Set() }));
    arrival.requests++;
    arrival.webhookIds.add(headers['webhook-id'] ?? '');
    if (status >= 200 && status < 300) {
      arrival.delivered++;
      this.delivered++;
      if (!this.owed.has(key)) this.unowedArrivals++;
    }
  }

  /** Attempts a worker may have sent without recording: open now, or answered within the last second. */
  noteKill(): number {
    const now = Date.now();
    const count = this.openRequests + this.recentAnswers.filter((at) => at >= now - 1_000).length;
    this.inFlightAtKills.push(count);
    return count;
  }

  oweMail(kind: string, recipient: string): void {
    const key = `${kind} ${recipient.toLowerCase()}`;
    this.mailsOwed.set(key, (this.mailsOwed.get(key) ?? 0) + 1);
  }

  mailInDoubt(kind: string, recipient: string): void {
    const key = `${kind} ${recipient.toLowerCase()}`;
    this.mailsInDoubt.set(key, (this.mailsInDoubt.get(key) ?? 0) + 1);
  }

  mailArrived(kind: string | null, recipient: string): void {
    if (!kind) {
      this.otherMails++;
      return;
    }
    const key = `${kind} ${recipient.toLowerCase()}`;
    this.mailsArrived.set(key, (this.mailsArrived.get(key) ?? 0) + 1);
  }

  answer(surface: 'api' | 'console', status: number): void {
    const label = status === 0 ? 'no answer' : String(status);
    this.statusCounts[surface][label] = (this.statusCounts[surface][label] ?? 0) + 1;
    if (status >= 500 || status === 0) this.answers.push({ at: Date.now(), status, surface });
  }

  openFault(name: string, explainsMs: number): FaultWindow {
    const window = { name, startedAt: Date.now(), endedAt: null, explainsMs };
    this.faults.push(window);
    return window;
  }

  /** 5xx (and unanswered requests) per surface, split into those a fault window explains and the rest. */
  failures(): {
    api: { explained: number; unexplained: number };
    console: { explained: number; unexplained: number };
    byFault: Record<string, number>;
    /** The first unexplained ones, with their time, to find them in the process logs. */
    unexplainedSample: { at: string; status: number; surface: string }[];
  } {
    const result = {
      api: { explained: 0, unexplained: 0 },
      console: { explained: 0, unexplained: 0 },
      byFault: {} as Record<string, number>,
      unexplainedSample: [] as { at: string; status: number; surface: string }[],
    };
    for (const answer of this.answers) {
      const window = this.faults.find(
        (f) => f.explainsMs > 0 && answer.at >= f.startedAt && answer.at <= (f.endedAt ?? Date.now()) + f.explainsMs,
      );
      if (window) {
        result[answer.surface].explained++;
        result.byFault[window.name] = (result.byFault[window.name] ?? 0) + 1;
      } else {
        result[answer.surface].unexplained++;
        if (result.unexplainedSample.length < 20) result.unexplainedSample.push({ at: new Date(answer.at).toISOString(), status: answer.status, surface: answer.surface });
      }
    }
    return result;
  }

  /** Owed webhooks not delivered, and deliveries beyond the first of one event at one endpoint. */
  webhookTally(): { owed: number; arrived: number; missing: number; duplicates: number } {
    let arrived = 0;
    let duplicates = 0;
    for (const key of this.owed) {
      const arrival = this.arrivals.get(key);
      if (arrival && arrival.delivered > 0) arrived++;
    }
    for (const arrival of this.arrivals.values()) if (arrival.delivered > 1) duplicates += arrival.delivered - 1;
    return { owed: this.owed.size, arrived, missing: this.owed.size - arrived, duplicates };
  }

  /** One event reaching one endpoint under two webhook-ids would be two events, not a retry. */
  eventsWithSeveralIds(): number {
    let n = 0;
    for (const arrival of this.arrivals.values()) if (arrival.webhookIds.size > 1) n++;
    return n;
  }

  mailTally(): { owed: number; arrived: number; lost: number; twice: number } {
    let owed = 0;
    let lost = 0;
    let twice = 0;
    let arrived = 0;
    for (const [key, count] of this.mailsOwed) {
      owed += count;
      const got = this.mailsArrived.get(key) ?? 0;
      arrived += Math.min(got, count);
      if (got < count) lost += count - got;
      const allowed = count + (this.mailsInDoubt.get(key) ?? 0);
      if (got > allowed) twice += got - allowed;
    }
    for (const [key, got] of this.mailsArrived) {
      if (!this.mailsOwed.has(key)) twice += Math.max(0, got - (this.mailsInDoubt.get(key) ?? 0));
    }
    return { owed, arrived, lost, twice };
  }
}
