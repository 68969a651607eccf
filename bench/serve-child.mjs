// A child process of the proxy benches (proxy.bench.ts, load.bench.ts, proxy-stores.ts): runs the
// emulator or the token proxy from the published build (dist/, what `npx esign-token-proxy` and an integrator's
// server run), tells its URL over IPC and answers the parent's commands. Plain JavaScript run by plain Node, so what
// is measured is the shipped code on Node as an operator runs it: no TypeScript loader (tsx compiles with esbuild's
// keepNames, which wraps every closure the proxy makes per request in a name-setting call: about a tenth of a
// refresh's CPU in a profile, none of it in the build). BENCH_FROM_SOURCE=1 runs src/ instead (through tsx,
// which the parent then adds), for profiles with source file names (BENCH_CHILD_ARGS='--cpu-prof …').
//
// Commands: {cmd:'mem'} (after GC), {cmd:'cpu'} (user + system µs, and system alone), {cmd:'stop'} and, the
// emulator, {cmd:'register', redirectUri} (a redirect URI of the demo app).
const from = process.env.BENCH_FROM_SOURCE === '1' ? 'src' : 'dist';
const ext = process.env.BENCH_FROM_SOURCE === '1' ? '.ts' : '.js';
const role = process.argv.find((a) => a.startsWith('--serve-'))?.slice('--serve-'.length);

let close;
let url;
let callbackUrl;
let register;
if (role === 'emulator') {
  const { createEmulator } = await import(`../packages/emulator/${from}/index${ext}`);
  const emu = await createEmulator({ port: 0, filePort: 0, limits: { requestsPerMinute: Number(process.env.BENCH_RPM ?? 60) } });
  url = emu.baseUrl;
  close = () => emu.close();
  register = (redirectUri) => emu.registerRedirectUri(process.env.BENCH_CLIENT_ID, redirectUri);
} else if (role === 'proxy') {
  const { serveTokenProxy } = await import(`../packages/token-proxy/${from}/node${ext}`);
  const { generateCookieKey } = await import(`../packages/token-proxy/${from}/index${ext}`);
  const served = await serveTokenProxy({
    port: 0,
    clientId: process.env.BENCH_CLIENT_ID,
    clientSecret: process.env.BENCH_CLIENT_SECRET,
    baseUrl: process.env.BENCH_UPSTREAM,
    // the page origin the sign-ins that make the cookie pool come from (the refreshes themselves send no Origin)
    allowedOrigins: [process.env.BENCH_ORIGIN],
    // browser-held mode only (load.bench.ts); the default mode's redirect URI is the proxy's callback
    redirectUris: [process.env.BENCH_REDIRECT_URI],
    // the limiter stays in the path, with a ceiling this load never reaches
    rateLimit: { windowMs: 60_000, max: 1e9 },
    cookieKeys: [process.env.BENCH_COOKIE_KEY ?? generateCookieKey()],
    ...(process.env.BENCH_STORE
      ? { store: await (await import(`../packages/token-proxy/${from}/redis${ext}`)).RedisStore.connect(process.env.BENCH_STORE) }
      : {}),
    // load.bench.ts refreshes with tokens in the form (the opt-in mode); this bench with session cookies
    browserHeldRefreshTokens: true,
  });
  url = served.url;
  // on 127.0.0.1 the public origin defaults to http://localhost:<port>; the callback must be registered at the emulator
  callbackUrl = served.callbackUrl;
  close = () => served.close();
} else {
  throw new Error(`serve-child: unknown role ${role}`);
}

process.on('message', (message) => {
  if (message.cmd === 'mem') {
    globalThis.gc?.();
    globalThis.gc?.();
    process.send({ mem: process.memoryUsage() });
  } else if (message.cmd === 'cpu') {
    // user + system time of this process so far, in µs: robust to other load on the machine, unlike req/s
    const { user, system } = process.cpuUsage();
    process.send({ cpu: user + system, system });
  } else if (message.cmd === 'register') {
    register(message.redirectUri);
    process.send({ registered: true });
  } else if (message.cmd === 'stop') {
    close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
});
process.send({ url, callbackUrl });
