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
