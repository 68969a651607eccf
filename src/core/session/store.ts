/** Where sessions and login attempts are kept: IndexedDB (idb-keyval) or memory only. */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';

export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

export type StorageKind = 'indexeddb' | 'memory';

export class MemoryStore implements KeyValueStore {
  readonly #map = new Map<string, unknown>();
  async get<T>(key: string): Promise<T | undefined> {
    // structuredClone so callers never share mutable state with the store, as with IndexedDB
    const value = this.#map.get(key);
    return value === undefined ? undefined : (structuredClone(value) as T);
  }
  async set(key: string, value: unknown): Promise<void> {
    this.#map.set(key, structuredClone(value));
  }
  async delete(key: string): Promise<void> {
    this.#map.delete(key);
  }
}

let idbStore: UseStore | undefined;

export class IndexedDbStore implements KeyValueStore {
  readonly #store: UseStore;
  constructor() {
    idbStore ??= createStore('esign-elements', 'kv');
    this.#store = idbStore;
  }
  get<T>(key: string): Promise<T | undefined> {
    return get<T>(key, this.#store);
  }
  set(key: string, value: unknown): Promise<void> {
    return set(key, value, this.#store);
  }
  delete(key: string): Promise<void> {
    return del(key, this.#store);
  }
}

/** sessionStorage-backed store: used only to carry a redirect-mode login attempt across the round trip when storage is "memory". */
export class TabStore implements KeyValueStore {
  async get<T>(key: string): Promise<T | undefined> {
    const raw = sessionStorage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }
  async set(key: string, value: unknown): Promise<void> {
    sessionStorage.setItem(key, JSON.stringify(value));
  }
  async delete(key: string): Promise<void> {
    sessionStorage.removeItem(key);
  }
}

const memoryStores = new Map<string, MemoryStore>();

/** One memory store per session key in this window, shared by every element that uses it. */
export function openStore(kind: StorageKind, sessionKey: string): KeyValueStore {
  if (kind === 'memory' || typeof indexedDB === 'undefined') {
    let store = memoryStores.get(sessionKey);
    if (!store) memoryStores.set(sessionKey, (store = new MemoryStore()));
    return store;
  }
  return new IndexedDbStore();
}
