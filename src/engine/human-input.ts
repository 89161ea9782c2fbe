import { EventEmitter } from 'node:events';
import { TabwrightError } from './errors.js';

/**
 * Requests for a person: "do something on the page" (action: log in, solve a
 * captcha, scan a QR code) or "give a value" (question: an SMS code, a choice).
 * The store lives in the engine so every door (HTTP, MCP, provider) and the
 * dashboard share one set of requests. Records are in memory only.
 *
 * Lifecycle: pending → (some steps answered) partial → (all answered)
 * answered; any non-answered state becomes expired once the deadline passes.
 */

export type HumanInputStatus = 'pending' | 'partial' | 'answered' | 'expired';

export interface HumanOption {
  label: string;
  description?: string;
}

export interface HumanStep {
  step_id: string;
  prompt: string;
  status: 'pending' | 'answered';
  /** A string, or an array of strings (multi-select). */
  answer?: string | string[];
  answered_at?: number;
  /** Where the step points on the page (action requests). */
  selector?: string;
  index?: number;
  frame?: string | number;
  /** Question fields (ask_user). */
  header?: string;
  options?: HumanOption[];
  multi_select?: boolean;
  /** An image of the element the step points at. */
  image?: HumanImage;
}

/** An image of the element the person should look at (a captcha, a QR code). */
export interface HumanImage {
  /** Server path of the file. */
  path: string;
  /** Where a client can GET it (door-specific), when known. */
  url?: string;
  /** What it shows: "selector=#captcha", "index=3", "page". */
  target: string;
  size: number;
  width?: number;
  height?: number;
}

export interface HumanInputRecord {
  id: string;
  kind: 'action' | 'question';
  prompt: string;
  steps: HumanStep[];
  status: HumanInputStatus;
  created_at: number;
  /** Epoch ms. */
  expires_at: number;
  answered_at: number | null;
  /** The person said they acted in the browser (no value). */
  marked_done: boolean;
  /** Who asked: free-form labels for the dashboard (door, task id, session, page). */
  owner: { door?: string; task_id?: string; session_id?: string; page_id?: string };
  /** The page's URL when the request was made. */
  url: string | null;
  image: HumanImage | null;
  /** Monotonic per record; increases on every change (long-poll clients compare it). */
  version: number;
}

export interface DeadlineInput {
  /** Absolute epoch ms. */
  expires_at?: number;
  expires_in_seconds?: number;
  timeout_seconds?: number;
}

export const DEFAULT_HUMAN_TIMEOUT_S = 300;
/** Finished records kept for reading after the fact. */
const KEEP_FINISHED = 200;
/** The longest a get may long-poll. */
export const MAX_LONG_POLL_MS = 300_000;

/**
 * The deadline precedence of the reference: expiresAt > expiresInSeconds >
 * timeoutSeconds > 300 s. A zero, negative or non-finite value is not
 * honoured (the next one, finally the default, applies); an absolute time
 * already in the past is not honoured either.
 */
export function resolveDeadline(d: DeadlineInput, now = Date.now()): number {
  const good = (v: number | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (good(d.expires_at) && d.expires_at > now) return Math.round(d.expires_at);
  if (good(d.expires_in_seconds)) return now + Math.round(d.expires_in_seconds * 1000);
  if (good(d.timeout_seconds)) return now + Math.round(d.timeout_seconds * 1000);
  return now + DEFAULT_HUMAN_TIMEOUT_S * 1000;
}

export interface CreateHumanInput extends DeadlineInput {
  kind: 'action' | 'question';
  /** Id prefix, e.g. "hr-1001" → "hr-1001-3". */
  id_prefix?: string;
  prompt?: string;
  steps?: {
    id?: string;
    prompt: string;
    selector?: string;
    index?: number;
    frame?: string | number;
    header?: string;
    options?: (string | HumanOption)[];
    multi_select?: boolean;
    image?: HumanImage | null;
  }[];
  owner?: HumanInputRecord['owner'];
  url?: string | null;
  image?: HumanImage | null;
}

export interface SubmitHumanInput {
  /** Single-step request (an empty string is a valid answer), or with step_id one step. */
  answer?: string | string[];
  step_id?: string;
  /** Several at once: step/question id → value or values. */
  answers?: Record<string, string | string[]>;
  /** The person acted in the browser: every pending step is closed with an empty answer. */
  done?: boolean;
}

/** One question's answer in the ask_user shape: option labels go to selected, other text to custom. */
export interface QuestionAnswer {
  id: string;
  selected: string[];
  custom?: string;
}

export type HumanInputEvent = { type: 'created' | 'updated' | 'expired'; record: HumanInputRecord };

/** The answers of a question record, one per question: the options chosen, or a custom answer. */
export function questionAnswers(rec: HumanInputRecord): QuestionAnswer[] {
  return HumanInputStore.questionAnswers(rec);
}

export class HumanInputStore {
  private seq = 0;
  private readonly records = new Map<string, HumanInputRecord>();

  /** Records kept now (pending ones, and at most KEEP_FINISHED finished ones). */
  get size(): number {
    return this.records.size;
  }
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  /** Every creation and change (the dashboard's live feed). Returns an unsubscribe function. */
  subscribe(listener: (e: HumanInputEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  create(req: CreateHumanInput): HumanInputRecord {
    const now = Date.now();
    const inputSteps = req.steps ?? [];
    const prompt = (req.prompt ?? '').trim();
    if (prompt === '' && inputSteps.length === 0) {
      throw new TabwrightError('invalid_request', 'A human-input request needs a prompt or steps.', {
        details: { field: 'prompt' },
      });
    }
    const seen = new Set<string>();
    const steps: HumanStep[] = inputSteps.map((s, i) => {
      const step_id = s.id ?? `s${i + 1}`;
      if (seen.has(step_id)) {
        throw new TabwrightError('invalid_request', `Two steps share the id "${step_id}".`, {
          details: { field: 'steps', step_id },
        });
      }
      seen.add(step_id);
      if (typeof s.prompt !== 'string' || s.prompt.trim() === '') {
        throw new TabwrightError('invalid_request', `Step ${step_id} needs a prompt.`, {
          details: { field: 'steps', step_id },
        });
      }
      return {
        step_id,
        prompt: s.prompt,
        status: 'pending',
        selector: s.selector,
        index: s.index,
        frame: s.frame,
        header: s.header,
        options: s.options?.map((o) => (typeof o === 'string' ? { label: o } : o)),
        multi_select: s.multi_select,
        image: s.image ?? undefined,
      };
    });
    const id = `${req.id_prefix ?? (req.kind === 'question' ? 'aq' : 'hr')}-${++this.seq}`;
    const rec: HumanInputRecord = {
      id,
      kind: req.kind,
      prompt: prompt || steps.map((s) => s.prompt).join('\n'),
      steps,
      status: 'pending',
      created_at: now,
      expires_at: resolveDeadline(req, now),
      answered_at: null,
      marked_done: false,
      owner: req.owner ?? {},
      url: req.url ?? null,
      image: req.image ?? null,
      version: 1,
    };
    this.records.set(id, rec);
    this.armExpiry(rec);
    this.prune();
    this.emit('created', rec);
    return this.copy(rec);
  }

  get(id: string): HumanInputRecord {
    const rec = this.records.get(id);
    if (!rec) {
      throw new TabwrightError(
        'invalid_request',
        `No human-input request ${id} (requests live in memory; issue a new one).`,
        {
          details: { field: 'request_id', request_id: id },
        },
      );
    }
    this.checkExpiry(rec);
    return this.copy(rec);
  }

  /** Newest first; `open` = pending or partial only. */
  list(filter: { open?: boolean } = {}): HumanInputRecord[] {
    const out: HumanInputRecord[] = [];
    for (const rec of this.records.values()) {
      this.checkExpiry(rec);
      if (filter.open && rec.status !== 'pending' && rec.status !== 'partial') continue;
      out.push(this.copy(rec));
    }
    return out.reverse();
  }

  submit(id: string, s: SubmitHumanInput): HumanInputRecord {
    const rec = this.records.get(id);
    if (!rec) this.get(id);
    const r = rec!;
    this.checkExpiry(r);
    if (r.status === 'expired') {
      throw new TabwrightError('invalid_request', `Request ${id} expired; the agent must issue a new one.`, {
        details: { field: 'request_id', request_id: id, status: 'expired' },
      });
    }
    if (r.status === 'answered') {
      throw new TabwrightError('invalid_request', `Request ${id} was already answered.`, {
        details: { field: 'request_id', request_id: id, status: 'answered' },
      });
    }
    const now = Date.now();
    const setStep = (stepId: string, value: string | string[]) => {
      const step = r.steps.find((x) => x.step_id === stepId);
      if (!step) {
        throw new TabwrightError('invalid_request', `Request ${id} has no step "${stepId}".`, {
          details: { field: 'step_id', step_id: stepId, steps: r.steps.map((x) => x.step_id) },
        });
      }
      checkValue(value, stepId);
      step.answer = value;
      step.status = 'answered';
      step.answered_at = now;
    };
    if (s.answers !== undefined) {
      for (const [k, v] of Object.entries(s.answers)) setStep(k, v);
    } else if (s.step_id !== undefined) {
      if (s.answer === undefined) {
        throw new TabwrightError('invalid_request', 'An answer is required with step_id.', {
          details: { field: 'answer' },
        });
      }
      setStep(s.step_id, s.answer);
    } else if (s.answer !== undefined) {
      checkValue(s.answer, 'answer');
      if (r.steps.length <= 1) {
        if (r.steps.length === 1) setStep(r.steps[0]!.step_id, s.answer);
        else
          r.steps.push({
            step_id: 's1',
            prompt: r.prompt,
            status: 'answered',
            answer: s.answer,
            answered_at: now,
          });
      } else {
        // One answer for a multi-step request closes every step still pending.
        for (const step of r.steps) if (step.status === 'pending') setStep(step.step_id, s.answer);
      }
    } else if (s.done) {
      r.marked_done = true;
      if (r.steps.length === 0)
        r.steps.push({ step_id: 's1', prompt: r.prompt, status: 'answered', answer: '', answered_at: now });
      for (const step of r.steps) if (step.status === 'pending') setStep(step.step_id, '');
    } else {
      throw new TabwrightError('invalid_request', 'Submit an answer, step_id + answer, or answers.', {
        details: { field: 'answer' },
      });
    }
    if (s.done) r.marked_done = true;
    const pending = r.steps.filter((x) => x.status === 'pending').length;
    r.status = pending === 0 ? 'answered' : 'partial';
    if (r.status === 'answered') {
      r.answered_at = now;
      this.disarm(r.id);
    }
    r.version++;
    this.emit('updated', r);
    return this.copy(r);
  }

  /**
   * Long-poll: resolves with the record as soon as it changes after `version`
   * (a step answered, all answered, expired), or with its current state when
   * `timeoutMs` elapses (never an error). An answered or expired record, or
   * one newer than `version`, resolves at once.
   */
  async wait(id: string, timeoutMs: number, version?: number): Promise<HumanInputRecord> {
    const now = this.get(id);
    const since = version ?? now.version;
    if (now.status === 'answered' || now.status === 'expired' || now.version > since || timeoutMs <= 0)
      return now;
    const ms = Math.min(timeoutMs, MAX_LONG_POLL_MS);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(this.get(id));
      }, ms);
      const off = this.subscribe((e) => {
        if (e.record.id !== id || e.record.version <= since) return;
        clearTimeout(timer);
        off();
        resolve(this.get(id));
      });
    });
  }

  /** ask_user answers: per question, option labels in selected, other text in custom; unanswered: selected []. */
  static questionAnswers(rec: HumanInputRecord): QuestionAnswer[] {
    return rec.steps.map((s) => {
      const out: QuestionAnswer = { id: s.step_id, selected: [] };
      if (s.answer === undefined) return out;
      if (Array.isArray(s.answer)) {
        out.selected = [...s.answer];
        return out;
      }
      const labels = new Set((s.options ?? []).map((o) => o.label));
      if (labels.has(s.answer)) out.selected = [s.answer];
      else out.custom = s.answer;
      return out;
    });
  }

  /** Stops every timer (engine close). */
  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.events.removeAllListeners();
  }

  private armExpiry(rec: HumanInputRecord): void {
    const ms = Math.max(0, rec.expires_at - Date.now());
    // Timers beyond ~24.8 days overflow; such deadlines are checked lazily on read.
    if (ms > 2 ** 31 - 1) return;
    const t = setTimeout(() => this.checkExpiry(rec), ms + 5);
    t.unref();
    this.timers.set(rec.id, t);
  }

  private disarm(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  private checkExpiry(rec: HumanInputRecord): void {
    if (rec.status === 'answered' || rec.status === 'expired') return;
    if (Date.now() < rec.expires_at) return;
    rec.status = 'expired';
    rec.version++;
    this.disarm(rec.id);
    this.emit('expired', rec);
  }

  private prune(): void {
    const finished = [...this.records.values()].filter(
      (r) => r.status === 'answered' || r.status === 'expired',
    );
    for (const r of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)))
      this.records.delete(r.id);
  }

  private emit(type: HumanInputEvent['type'], rec: HumanInputRecord): void {
    this.events.emit('event', { type, record: this.copy(rec) });
  }

  private copy(rec: HumanInputRecord): HumanInputRecord {
    return structuredClone(rec);
  }
}

function checkValue(v: unknown, field: string): void {
  const ok = typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  if (!ok) {
    throw new TabwrightError(
      'invalid_request',
      `The answer for ${field} must be a string or an array of strings.`,
      {
        details: { field },
      },
    );
  }
}
