/**
 * Launch flags. The quiet-network set keeps Chromium from calling home
 * (on a closed network it otherwise hammers refused connections); the
 * sandbox is only switched off when we must (root), because it protects the
 * machine from the pages agents visit.
 */
export const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-quic',
  '--no-default-browser-check',
  '--metrics-recording-only',
  // Two services the switches above leave on, found by tracing a headless Chromium 156 that had
  // opened one blank page: Chrome's own account check (ListAccounts) resolves accounts.google.com
  // at start-up, and a component fetched on demand resolves update.googleapis.com. Each is pointed
  // at a closed loopback port, so nothing leaves the machine and no DNS query is sent. Pages are
  // unaffected: only Chrome's internal sign-in code and its component updater read these switches
  // (a site's "Sign in with Google" still goes to accounts.google.com, as any other site).
  '--gaia-url=http://127.0.0.1:9',
  '--component-updater=url-source=http://127.0.0.1:9',
  // The spellchecker downloads its Hunspell dictionary (…/edgedl/chrome/dict/en-us-10-2.bdic) from
  // this host the first time a page's text field is checked, and no switch or feature turns that off
  // (only a profile pref or an enterprise policy, which a launch cannot set): the name fails in the
  // browser's own resolver, so no query is sent. Pages of restricted sessions are unaffected (their
  // names are resolved by the policy proxy); an unrestricted page on this host gets
  // ERR_NAME_NOT_RESOLVED (it serves Chrome's own downloads).
  '--host-resolver-rules=MAP redirector.gvt1.com ~NOTFOUND',
];

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * WebRTC never sends UDP: ICE may then only use TCP, and through the context's proxy when it has one
 * (a restricted session's policy proxy judges TURN-over-TCP by its CONNECT host:port). Without it a
 * page's RTCPeerConnection sends STUN/TURN UDP straight to any host, carrying the TURN username,
 * outside every request filter. (`--force-webrtc-ip-handling-policy` does not do this in Chromium
 * 156.) Sessions without a proxy keep WebRTC over TCP only: TURN over TCP connects directly, UDP
 * peer-to-peer and STUN do not.
 */
export const WEBRTC_FLAGS = ['--webrtc-ip-handling-policy=disable_non_proxied_udp'];

export function chromiumFlags(extra: string[] = []): string[] {
  const flags = [...QUIET_FLAGS, ...WEBRTC_FLAGS];
  if (isRoot()) flags.push('--no-sandbox');
  return [...flags, ...extra];
}

/**
 * Chromium features off in every browser we launch. (Chromium 156 also starts an on-device model
 * utility process, `on_device_model.mojom.OnDeviceModelService`, three minutes after launch and keeps
 * it: none of 53 feature names of the on-device model and the optimization guide stops it; it is the
 * shared browser's, started once whatever the sessions do, and the soak's close check names it.)
 */
export const DISABLED_FEATURES = [
  // Autofill's field-type queries to content-autofill.googleapis.com for every page with a form:
  // refused by a session's origin policy (its proxy logs each one) and useless to an agent.
  'AutofillServerCommunication',
  // The two below are in playwright-core's own list too, so local launches had them; a Grid node's
  // chromedriver adds no --disable-features, and its Chromium resolved clients2.google.com (the
  // network time service) and optimizationguide-pa.googleapis.com (optimization hints) during the
  // Grid tests (captured with tcpdump on port 53, 2026-12-02).
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
];

const DISABLE = '--disable-features=';

/**
 * `args` with its --disable-features switches and ours merged into one at the end (Chromium keeps
 * only the last of a switch given twice): for launches where no driver adds its own list (a Grid
 * node's chromedriver adds none).
 */
export function withDisabledFeatures(args: string[]): string[] {
  const names = args.filter((a) => a.startsWith(DISABLE)).flatMap((a) => a.slice(DISABLE.length).split(','));
  const merged = [...new Set([...names, ...DISABLED_FEATURES].filter(Boolean))];
  return [...args.filter((a) => !a.startsWith(DISABLE)), `${DISABLE}${merged.join(',')}`];
}

/**
 * A launch's arguments with a single --disable-features: Chromium keeps only the last of a switch
 * given twice, so the driver's own list (`driverDefaults`: what playwright-core adds), the caller's
 * (`extra`) and ours are merged into one, and the driver's switch is left out (ignoreDefaultArgs).
 * Without the driver's list ours is not added (it would replace the driver's).
 */
export function launchArgs(
  extra: string[],
  driverDefaults: string[],
): { args: string[]; ignoreDefaultArgs: string[] } {
  const driverSwitch = driverDefaults.find((a) => a.startsWith(DISABLE));
  if (!driverSwitch) return { args: chromiumFlags(extra), ignoreDefaultArgs: [] };
  return {
    args: withDisabledFeatures([driverSwitch, ...chromiumFlags(extra)]),
    ignoreDefaultArgs: [driverSwitch],
  };
}
