import { readFileSync } from 'node:fs';
import { freemem, totalmem } from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import { registryOf } from '../snapshot/refs.js';
import type { Session } from './session.js';

/**
 * What the engine holds right now, summed over its sessions: the figures a soak benchmark watches
 * for growth and a health endpoint reports. Every one of them has a bound (docs/ARCHITECTURE.md,
 * "Bounds"); none is read from the browser, so reading them costs no round trip.
 */
export interface EngineCounts {
  sessions: number;
  /** Open pages of every session. */
  pages: number;
  /** Browser contexts the sessions hold (one per live session). */
  contexts: number;
  /** Operations queued or running on pages. */
  queued_operations: number;
  /** Calls registered on a session's death guard (bounded by the calls in flight). */
  guarded_calls: number;
  request_log_entries: number;
  request_bodies: number;
  console_entries: number;
  downloads: number;
  /** Element refs remembered (live and stale). */
  refs: number;
  human_inputs: number;
  /** Session closes that did not finish within their deadline, since the engine started (Engine.stuckClose). */
  stuck_closes: number;
  /** Node's handles and requests by type (Timeout, TCPWRAP, …): what keeps the event loop busy. */
  node_resources: Record<string, number>;
}

export function countSessions(sessions: Session[], humanInputs: number, stuckCloses: number): EngineCounts {
  const c: EngineCounts = {
    sessions: sessions.length,
    pages: 0,
    contexts: 0,
    queued_operations: 0,
    guarded_calls: 0,
    request_log_entries: 0,
    request_bodies: 0,
    console_entries: 0,
    downloads: 0,
    refs: 0,
    human_inputs: humanInputs,
    stuck_closes: stuckCloses,
    node_resources: {},
  };
  for (const s of sessions) {
    const pages = s.pages();
    c.pages += pages.length;
    if (s.alive) c.contexts++;
    c.guarded_calls += s.pendingGuards;
    const log = s.requests.size;
    c.request_log_entries += log.entries;
    c.request_bodies += log.bodies;
    c.downloads += s.downloads.size;
    c.refs += registryOf(s).size;
    for (const p of pages) {
      c.queued_operations += p.queue.pending;
      c.console_entries += p.console.size;
    }
  }
  for (const r of process.getActiveResourcesInfo()) c.node_resources[r] = (c.node_resources[r] ?? 0) + 1;
  return c;
}

/** The memory figures of this process and the machine, in bytes. */
export interface MemoryFigures {
  rss: number;
  heap_used: number;
  /** MemAvailable on Linux (what can be had without swapping), else the OS's free memory. */
  available: number;
  total: number;
}

export function memoryFigures(): MemoryFigures {
  const m = process.memoryUsage();
  return { rss: m.rss, heap_used: m.heapUsed, available: availableMemory(), total: totalmem() };
}

/**
 * Where this process's memory is, in MiB (the soak benchmark prints it per process, read from
 * TABWRIGHT_STATS_FILE): what V8 committed for its heap against what is live in it, the Buffers and
 * ArrayBuffers outside it (screenshots, CDP messages), and the old-generation spaces whose pages a
 * fragmented heap keeps. RSS less heap_total less external is roughly malloc and code.
 */
export interface ProcessMemory {
  rss: number;
  heap_total: number;
  heap_used: number;
  external: number;
  array_buffers: number;
  /** Committed / used per V8 space that can hold much: old, large objects, code, young. */
  spaces: Record<string, [committed: number, used: number]>;
}

const SPACES: Record<string, string> = {
  old_space: 'old',
  large_object_space: 'lo',
  code_space: 'code',
  new_space: 'new',
};

export function processMemory(): ProcessMemory {
  const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
  const m = process.memoryUsage();
  const spaces: ProcessMemory['spaces'] = {};
  for (const s of getHeapSpaceStatistics()) {
    const name = SPACES[s.space_name];
    if (name) spaces[name] = [mb(s.space_size), mb(s.space_used_size)];
  }
  return {
    rss: mb(m.rss),
    heap_total: mb(m.heapTotal),
    heap_used: mb(m.heapUsed),
    external: mb(m.external),
    array_buffers: mb(m.arrayBuffers),
    spaces,
  };
}

/** Memory a new browser context can take without swapping: MemAvailable, not MemFree (page cache is reclaimable). */
export function availableMemory(): number {
  try {
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // Not Linux: the OS's own figure.
  }
  return freemem();
}
