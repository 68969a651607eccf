// A ProxyStore for Cloudflare Workers on Durable Objects: one object per key, so each claim and counter is atomic
// (a Durable Object handles one request at a time) and shared by every isolate of the Worker. An entry ends with
// its time to live (an alarm deletes it). Workers KV would not do: it is eventually consistent, with no set-if-absent.
import { StoreUnavailableError, type ProxyStore } from '@esign-elements/token-proxy';

interface Entry {
  value: string;
  count: number;
  expiresAt: number;
}

/** The Durable Object class: export it from the Worker and bind it (wrangler.toml [[durable_objects.bindings]]). */
export class ProxyStoreEntry {
  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { op, value = '', ttlMs = 0 } = (await request.json()) as { op: string; value?: string; ttlMs?: number };
    const now = Date.now();
    let entry = await this.state.storage.get<Entry>('entry');
    if (entry && entry.expiresAt <= now) entry = undefined;
    const keep = async (next: Entry): Promise<void> => {
      await this.state.storage.put('entry', next);
      await this.state.storage.setAlarm(next.expiresAt);
    };
    switch (op) {
      case 'hit':
        entry ??= { value: '', count: 0, expiresAt: now + ttlMs };
        entry.count += 1;
        await keep(entry);
        return Response.json({ count: entry.count, resetMs: entry.expiresAt - now });
      case 'claim':
        if (entry) return Response.json({ claimed: false });
        await keep({ value, count: 0, expiresAt: now + ttlMs });
        return Response.json({ claimed: true });
      case 'get':
        return Response.json({ value: entry?.value ?? null });
      case 'set':
        await keep({ value, count: 0, expiresAt: now + ttlMs });
        return Response.json({});
      case 'delete':
        await this.state.storage.deleteAll();
        return Response.json({});
      default:
        return new Response(null, { status: 400 });
    }
  }

  async alarm(): Promise<void> {
    const entry = await this.state.storage.get<Entry>('entry');
    if (!entry || entry.expiresAt <= Date.now()) await this.state.storage.deleteAll();
    else await this.state.storage.setAlarm(entry.expiresAt);
  }
}

/** The proxy's side: `createTokenProxy({ ...options, store: new DurableObjectStore(env.ESIGN_STORE) })`. */
export class DurableObjectStore implements ProxyStore {
  constructor(private readonly namespace: DurableObjectNamespace) {}

  async #op<T>(key: string, body: { op: string; value?: string; ttlMs?: number }): Promise<T> {
    try {
      const response = await this.namespace.get(this.namespace.idFromName(key)).fetch('https://store/', { method: 'POST', body: JSON.stringify(body) });
      if (!response.ok) throw new Error(String(response.status));
      return (await response.json()) as T;
    } catch {
      throw new StoreUnavailableError('The Durable Object store did not answer.');
    }
  }

  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    return this.#op(key, { op: 'hit', ttlMs: windowMs });
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.#op<{ claimed: boolean }>(key, { op: 'claim', value, ttlMs })).claimed;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.#op<{ value: string | null }>(key, { op: 'get' })).value ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#op(key, { op: 'set', value, ttlMs });
  }

  async delete(key: string): Promise<void> {
    await this.#op(key, { op: 'delete' });
  }

  async ping(): Promise<void> {
    await this.#op('ping', { op: 'get' });
  }
}
