/**
 * Reads the network calls of a `strace -f -yy -xx` trace (test/browser-egress.test.ts): the inet
 * connects, and the question of every DNS query sent, decoded from the bytes of the send call
 * (`-xx` prints every byte of a string as \xNN), so a failure names the host that was looked up.
 */

/** The trace options these functions read: fds with their protocol and ends, strings in hex. */
export const STRACE_NET_ARGS = [
  '-yy',
  '-xx',
  // A DNS question is at most 12 + 255 + 4 bytes; longer sends (IPC, HTTP bodies) are cut here.
  '-s',
  '300',
  '-e',
  // glibc's resolver connects its socket, then sends with sendmmsg (A and AAAA together) or sendto
  // over UDP, or with writev over TCP (a truncated answer, `options use-vc`).
  'trace=connect,sendto,sendmsg,sendmmsg,writev',
];

/** One string as strace prints it: \xNN (all of them under -xx), C escapes, octal, plain bytes. */
export function straceBytes(s: string): Buffer {
  const out: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      out.push(s.charCodeAt(i) & 0xff);
      continue;
    }
    const c = s[i + 1] ?? '';
    if (c === 'x') {
      out.push(Number.parseInt(s.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (/[0-7]/.test(c)) {
      const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1))![0];
      out.push(Number.parseInt(oct, 8));
      i += oct.length;
    } else {
      out.push(simple[c] ?? c.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(out);
}

/**
 * The trace's lines with each `<unfinished ...>` half joined to its `<... name resumed>` half (strace
 * -f splits a call that another thread interrupts; sendmmsg's messages are printed on the resumed
 * half, the fd on the first).
 */
export function joinedLines(trace: string): string[] {
  const pending = new Map<string, string>();
  const lines: string[] = [];
  for (const line of trace.split('\n')) {
    const unfinished = /^(\d+)\s+(.*) <unfinished \.\.\.>$/.exec(line);
    if (unfinished) {
      pending.set(unfinished[1]!, unfinished[2]!);
      continue;
    }
    const resumed = /^(\d+)\s+<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) {
      const head = pending.get(resumed[1]!);
      pending.delete(resumed[1]!);
      if (head !== undefined) lines.push(`${resumed[1]}  ${head}${resumed[2]}`);
      continue;
    }
    lines.push(line);
  }
  // A call still unfinished when the trace ended (the process was killed in it) keeps its arguments.
  for (const [pid, head] of pending) lines.push(`${pid}  ${head}`);
  return lines;
}

const TYPES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  64: 'SVCB',
  65: 'HTTPS',
};

/** The questions of one DNS message ("host TYPE"), [] when the bytes are not a query. */
export function dnsQuestions(msg: Buffer): string[] {
  if (msg.length < 12 || (msg[2]! & 0x80) !== 0) return [];
  const count = msg.readUInt16BE(4);
  const questions: string[] = [];
  let at = 12;
  for (let q = 0; q < count; q++) {
    const labels: string[] = [];
    for (;;) {
      const len = msg[at];
      if (len === undefined || len > 63 || at + 1 + len > msg.length) return questions;
      at += 1;
      if (len === 0) break;
      labels.push(msg.toString('latin1', at, at + len));
      at += len;
    }
    if (at + 4 > msg.length) return questions;
    const type = msg.readUInt16BE(at);
    at += 4;
    questions.push(`${labels.join('.') || '.'} ${TYPES[type] ?? `type${type}`}`);
  }
  return questions;
}

/**
 * Route probes: a UDP socket connected to a public address to learn which local address would be
 * used (Chromium's IPv6 reachability check). Connecting a UDP socket sends no datagram.
 */
const ROUTE_PROBES = new Set(['udp 2001:4860:4860::8888:443', 'udp 8.8.8.8:443']);

/** One connect(): the fd with its protocol (`28<UDP:[…]>`), then the address. */
const CONNECT =
  /^\d+\s+connect\(\d+<(TCP|TCPv6|UDP|UDPv6|[A-Z][\w-]*):[^>]*>, \{sa_family=(AF_INET6?), sin6?_port=htons\((\d+)\),.*?(?:inet_addr\("([^"]*)"\)|inet_pton\(AF_INET6, "([^"]*)")/;

/** One send on an inet socket: the call, the protocol and, when connected, `local->remote`. */
const SEND = /^\d+\s+(sendto|sendmsg|sendmmsg|writev)\(\d+<(TCP|TCPv6|UDP|UDPv6):\[([^\]]*)\]>/;

const STRING = /"((?:[^"\\]|\\.)*)"/g;

export interface TraceNet {
  /** Connects beyond loopback, and every connect to port 53, as "tcp|udp address:port". */
  outside: string[];
  /** The ports of the loopback connects (so a test can show the parser saw the ones it knows of). */
  loopbackPorts: Set<number>;
  /** The question of every DNS query sent ("host TYPE"), in order. */
  dnsQuestions: string[];
  /** The bytes of each send on an inet socket (cut at strace's -s), so a test can show they were read. */
  inetSends: Buffer[];
}

export function netOf(trace: string): TraceNet {
  const outside: string[] = [];
  const loopbackPorts = new Set<number>();
  const questions: string[] = [];
  const inetSends: Buffer[] = [];
  for (const line of joinedLines(trace)) {
    const c = CONNECT.exec(line);
    if (c) {
      const address = straceBytes(c[4] ?? c[5] ?? '').toString('latin1');
      const port = Number(c[3]);
      const loopback = address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
      // A DNS query is egress even to a loopback resolver (systemd-resolved): every URL here is an IP.
      if (loopback && port !== 53) {
        loopbackPorts.add(port);
        continue;
      }
      const entry = `${c[1]!.startsWith('UDP') ? 'udp' : c[1]!.startsWith('TCP') ? 'tcp' : c[1]} ${address}:${port}`;
      if (!ROUTE_PROBES.has(entry)) outside.push(entry);
      continue;
    }
    const s = SEND.exec(line);
    if (!s) continue;
    const strings = [...line.slice(s[0].length).matchAll(STRING)].map((m) => straceBytes(m[1]!));
    inetSends.push(Buffer.concat(strings));
    // Port 53 by the connected socket's far end, or by the address an unconnected sendto/sendmsg names.
    const toDns = /->[^\]]*:53$/.test(s[3]!) || /sin6?_port=htons\(53\)/.test(line);
    if (!toDns) continue;
    if (s[2]!.startsWith('UDP')) {
      for (const b of strings) questions.push(...dnsQuestions(b));
      continue;
    }
    // DNS over TCP: each message after its two-byte length.
    const stream = Buffer.concat(strings);
    for (let at = 0; at + 2 <= stream.length; ) {
      const len = stream.readUInt16BE(at);
      questions.push(...dnsQuestions(stream.subarray(at + 2, at + 2 + len)));
      at += 2 + len;
    }
  }
  return { outside, loopbackPorts, dnsQuestions: questions, inetSends };
}
