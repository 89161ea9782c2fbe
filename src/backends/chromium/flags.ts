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

export function chromiumFlags(extra: string[] = []): string[] {
  const flags = [...QUIET_FLAGS];
  if (isRoot()) flags.push('--no-sandbox');
  return [...flags, ...extra];
}
