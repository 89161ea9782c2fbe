import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Watches the sockets of this process's descendants (browsers, door processes, their browsers) and
 * records every remote address that is not loopback. Linux /proc only: socket inodes of each
 * descendant's fds, looked up in /proc/<pid>/net/{tcp,tcp6,udp,udp6}. Polling can miss a socket
 * that lives for less than one interval; it sees every connection that stays open longer.
 */
export class EgressMonitor {
  readonly seen = new Set<string>();
  /** For each address in `seen`, who held the socket ("pid command"), so a failure names the caller. */
  readonly seenBy = new Map<string, string>();
  /** Loopback connections matched (remote 127.x / ::1): proof the inode lookup works, so an empty `seen` means something. */
  readonly loopback = new Set<string>();
  /** Descendants seen at least once, with their command (to name who called out). */
  readonly processes = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;

  start(intervalMs = 200): void {
    this.timer = setInterval(() => this.poll(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.poll();
  }

  /** This process's descendants, from the kernel's children lists (cheap: no scan of /proc). */
  private descendants(): number[] {
    const out: number[] = [];
    const visit = (pid: number) => {
      let tasks: string[] = [];
      try {
        tasks = readdirSync(`/proc/${pid}/task`);
      } catch {
        return;
      }
      for (const t of tasks) {
        let kids = '';
        try {
          kids = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
        } catch {
          continue;
        }
        for (const k of kids.trim().split(/\s+/).filter(Boolean)) {
          out.push(Number(k));
          visit(Number(k));
        }
      }
    };
    visit(process.pid);
    return out;
  }

  poll(): void {
    /** Socket inode → the pid that holds it. */
    const inodes = new Map<string, number>();
    for (const pid of this.descendants()) {
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          try {
            const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
            if (m) inodes.set(m[1]!, pid);
          } catch {}
        }
        if (!this.processes.has(pid))
          this.processes.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '');
      } catch {}
    }
    if (inodes.size === 0) return;
    // One network namespace: the tables are read once per poll, not per process.
    for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
      let text = '';
      try {
        text = readFileSync(`/proc/self/net/${table}`, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols.length < 10 || !inodes.has(cols[9]!)) continue;
        const remote = decodeAddress(cols[2]!);
        if (!remote) continue;
        if (!isLoopbackOrUnset(remote.ip)) {
          const address = `${table} ${remote.ip}:${remote.port}`;
          this.seen.add(address);
          const pid = inodes.get(cols[9]!)!;
          if (!this.seenBy.has(address)) this.seenBy.set(address, `${pid} ${this.processes.get(pid) ?? '?'}`);
        } else if (remote.port !== 0 && !remote.ip.startsWith('0.0.0.0') && remote.ip !== '0:0:0:0:0:0:0:0')
          this.loopback.add(`${table} ${cols[9]}`);
      }
    }
  }
}

function decodeAddress(hex: string): { ip: string; port: number } | null {
  const [addr, port] = hex.split(':');
  if (!addr || !port) return null;
  if (addr.length === 8) {
    const b = Buffer.from(addr, 'hex');
    return { ip: [b[3], b[2], b[1], b[0]].join('.'), port: Number.parseInt(port, 16) };
  }
  // IPv6: four little-endian 32-bit words.
  const words = addr.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => [...Buffer.from(w, 'hex')].reverse());
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return { ip: groups.join(':'), port: Number.parseInt(port, 16) };
}

function isLoopbackOrUnset(ip: string): boolean {
  return (
    ip.startsWith('127.') ||
    ip === '0.0.0.0' ||
    ip === '0:0:0:0:0:0:0:0' ||
    ip === '0:0:0:0:0:0:0:1' ||
    ip.startsWith('0:0:0:0:0:ffff:7f') // IPv4-mapped 127.x
  );
}
