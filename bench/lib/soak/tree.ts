import { existsSync, readFileSync } from 'node:fs';
import { commandLineFlag } from '../../../src/backends/process-tree.js';
import { processesBelow } from '../../../test/helpers/pipe-run.js';

/**
 * Memory of a process tree as the issue measures it: PSS (proportional set size: shared pages
 * divided among their sharers, so a tree's sum counts Chromium's shared code once) from
 * /proc/<pid>/smaps_rollup, summed over a root and everything below it.
 */
export function pssKb(pid: number, field: 'Pss' | 'Pss_Anon' = 'Pss'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone between listing and reading
  }
}

export interface TreeMemory {
  /** PSS of the roots themselves (the Node side), MiB. */
  nodeMb: number;
  /** PSS of the roots and every process below them (Node + browsers), MiB. */
  treeMb: number;
  processes: number;
  /** Browser processes (everything below the roots). */
  browserProcesses: number;
}

export function treePids(roots: number[]): number[] {
  const out = new Set<number>();
  for (const r of roots) {
    if (existsSync(`/proc/${r}`)) out.add(r);
    for (const p of processesBelow(r)) out.add(p.pid);
  }
  return [...out];
}

export function treeMemory(roots: number[]): TreeMemory {
  const all = treePids(roots);
  const rootSet = new Set(roots);
  let node = 0;
  let tree = 0;
  for (const pid of all) {
    const kb = pssKb(pid);
    tree += kb;
    if (rootSet.has(pid)) node += kb;
  }
  return {
    nodeMb: node / 1024,
    treeMb: tree / 1024,
    processes: all.length,
    browserProcesses: all.length - roots.filter((r) => all.includes(r)).length,
  };
}

/** The --user-data-dir of every browser process in the trees: temporary profiles to check after close. */
export function profileDirs(roots: number[]): string[] {
  const dirs = new Set<string>();
  for (const pid of treePids(roots)) {
    const d = commandLineFlag(pid, 'user-data-dir');
    if (d) dirs.add(d);
  }
  return [...dirs];
}

/** utime + stime of a process in clock ticks (1/100 s on Linux), or undefined when it is gone. */
function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5), counted from the state (field 3) here.
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** A process's kind: the root's name for a root, else its Chromium --type (browser for none). */
function kindOf(pid: number, rootNames: Map<number, string>): string {
  const root = rootNames.get(pid);
  if (root) return root;
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
    return type ?? (/chrom/i.test(cmd) ? 'browser' : 'other');
  } catch {
    return 'gone';
  }
}

/** Busy and total CPU ticks of the whole machine (every core), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

export interface CpuWindow {
  /** CPU seconds in the window per kind: the roots by name, Chromium processes by --type, `bench` (this process: clients and fixture server). */
  seconds: Record<string, number>;
  /** CPU seconds the whole machine was busy (other users included), and its capacity, in the window. */
  machineBusy: number;
  machineCapacity: number;
}

/**
 * CPU used per kind of process between two calls of `window`. A process that exited inside the
 * window loses its last part (up to one window of a short-lived renderer): a lower bound.
 */
export class CpuMeter {
  private readonly last = new Map<number, number>();
  private bench = process.cpuUsage();
  private machine = machineTicks();

  window(roots: { pid: number; name: string }[]): CpuWindow {
    const names = new Map(roots.map((r) => [r.pid, r.name]));
    const seconds: Record<string, number> = {};
    const seen = new Set<number>();
    for (const pid of treePids(roots.map((r) => r.pid))) {
      const ticks = cpuTicks(pid);
      if (ticks === undefined) continue;
      seen.add(pid);
      const delta = ticks - (this.last.get(pid) ?? 0);
      this.last.set(pid, ticks);
      const kind = kindOf(pid, names);
      seconds[kind] = (seconds[kind] ?? 0) + delta / 100;
    }
    for (const pid of this.last.keys()) if (!seen.has(pid)) this.last.delete(pid);
    const b = process.cpuUsage(this.bench);
    this.bench = process.cpuUsage();
    seconds.bench = (b.user + b.system) / 1e6;
    const m = machineTicks();
    const out = {
      seconds,
      machineBusy: (m.busy - this.machine.busy) / 100,
      machineCapacity: (m.total - this.machine.total) / 100,
    };
    this.machine = m;
    return out;
  }
}

/** PSS per kind of process (as CpuMeter names them), MiB: where the tree's memory is. */
export function pssByKind(roots: { pid: number; name: string }[]): Record<string, number> {
  const names = new Map(roots.map((r) => [r.pid, r.name]));
  const out: Record<string, number> = {};
  for (const pid of treePids(roots.map((r) => r.pid))) {
    const kind = kindOf(pid, names);
    out[kind] = (out[kind] ?? 0) + pssKb(pid) / 1024;
  }
  return out;
}

/**
 * A Node process's mappings by what holds them, PSS in MiB (/proc/<pid>/smaps): `brk` is glibc's
 * main malloc arena (`[heap]`), `arenas` its per-thread arenas (anonymous, 64 MiB-aligned heaps of
 * at most 64 MiB: a read-write part and the reserved rest), `anon` every other anonymous mapping
 * (V8's heap pages, blocks malloc mapped on their own, thread stacks), `file` the binary and
 * libraries. With the process's own figures (heap_total, external) it says whether growth is V8's
 * heap or malloc's.
 */
export interface NodeMappings {
  brk: number;
  arenas: number;
  /** Per-thread arenas seen. */
  arenaCount: number;
  anon: number;
  file: number;
}

const ARENA = 64 * 2 ** 20;

export function nodeMappings(pid: number): NodeMappings | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  interface Vma {
    start: number;
    end: number;
    perms: string;
    path: string;
    pssKb: number;
  }
  const vmas: Vma[] = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      vmas.push({
        start: Number.parseInt(head[1]!, 16),
        end: Number.parseInt(head[2]!, 16),
        perms: head[3]!,
        path: head[4]!,
        pssKb: 0,
      });
      continue;
    }
    const pss = /^Pss:\s+(\d+) kB/.exec(line);
    if (pss && vmas.length) vmas[vmas.length - 1]!.pssKb = Number(pss[1]);
  }
  const out: NodeMappings = { brk: 0, arenas: 0, arenaCount: 0, anon: 0, file: 0 };
  for (let i = 0; i < vmas.length; i++) {
    const v = vmas[i]!;
    const mb = v.pssKb / 1024;
    if (v.path === '[heap]') out.brk += mb;
    else if (v.path && !v.path.startsWith('[anon')) out.file += mb;
    else {
      // A glibc arena heap: starts on a 64 MiB boundary, and it (with the PROT_NONE rest that
      // follows it) spans 64 MiB at most.
      const next = vmas[i + 1];
      const rest =
        next && next.start === v.end && next.perms.startsWith('---') && !next.path ? next : undefined;
      const span = (rest ?? v).end - v.start;
      if (
        v.start % ARENA === 0 &&
        v.perms.startsWith('rw') &&
        span <= ARENA &&
        span > 0 &&
        (rest || span === ARENA)
      ) {
        out.arenas += mb;
        out.arenaCount++;
      } else out.anon += mb;
    }
  }
  return out;
}
