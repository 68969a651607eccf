/**
 * The one key-value store for everything the library keeps in the browser: the session marker and login attempts
 * (session manager) and the FileIds of completed uploads (upload persistence). (A redirect sign-in with
 * `storage="memory"` carries its attempt in sessionStorage: login.ts `TabStore`.) IndexedDB through idb-keyval, one
 * database (`esign-elements`, store `kv`); memory where IndexedDB is missing or `storage="memory"` asks for it.
 * Keys say whose they are: `esign:session:…`, `esign:uploads|…`.
 */
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

/** The database and store every IndexedDbStore shares. */
export const KV_DB = 'esign-elements';
export const KV_STORE = 'kv';
let idbStore: UseStore | undefined;

export class IndexedDbStore implements KeyValueStore {
  readonly #store: UseStore;
  constructor() {
    idbStore ??= createStore(KV_DB, KV_STORE);
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

const memoryStores = new Map<string, MemoryStore>();

/**
 * The store for `kind`: IndexedDB, or (for `memory`, or where there is no IndexedDB) one memory store per `scope` in this
 * window, shared by every element that uses it.
 */
export function openStore(kind: StorageKind, scope: string): KeyValueStore {
  if (kind === 'memory' || typeof indexedDB === 'undefined') {
    let store = memoryStores.get(scope);
    if (!store) memoryStores.set(scope, (store = new MemoryStore()));
    return store;
  }
  return new IndexedDbStore();
}
