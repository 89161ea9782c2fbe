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
