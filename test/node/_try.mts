import { startRedisCluster } from './proxy-redis-cluster.js';
import { RedisStore } from '../../src/proxy/redis.js';
const c = await startRedisCluster();
try {
  const store = await RedisStore.connect({ url: c.url });
  await store.ping();
  console.log('ping ok');
  for (let i = 0; i < 6; i++) {
    const r = await store.claimOrGet(`rf:{session:s${i}}:abc`, 'p:x', 3000, { key: `rl:{session:s${i}}`, windowMs: 60000, max: 5 });
    console.log(JSON.stringify(r));
  }
  const w = store.settled('rf:{session:s1}:abc', 5000);
  const t0 = Date.now();
  await store.claimOrGet(`rf:{session:s1}:abc`, 'p:y', 3000);
  setTimeout(() => store.settle('rf:{session:s1}:abc', 'd:x', 1000), 100);
  await w; console.log('woken after', Date.now() - t0);
  // kill a primary, measure
  const primaries = [];
  for (const n of c.nodes) if ((await n.role()) === 'master') primaries.push(n);
  primaries[0].kill();
  const t1 = Date.now();
  let okAll = false; const seen = new Map();
  while (!okAll && Date.now() - t1 < 20000) {
    const res = await Promise.all([0,1,2,3,4,5,6,7,8,9].map((i) => store.hit(`rl:{k${i}}`, 60000).then(() => 'ok', (e) => e.message)));
    okAll = res.every((r) => r === 'ok');
    for (const r of res) seen.set(r, (seen.get(r) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log('recovered', okAll, Date.now() - t1, [...seen]);
  console.log('ping', await store.ping().then(() => 'ok', (e) => e.message));
  await store.close();
} finally { await c.stop(); }
