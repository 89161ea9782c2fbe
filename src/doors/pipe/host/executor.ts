import { ops } from '../../../engine/api.js';
import type { Page } from '../../../engine/page.js';
import type { Session } from '../../../engine/session.js';
import { dispatch, InvalidParams } from '../../kit/index.js';
import { hostOf, invalidParams } from '../protocol/actions.js';
import type { PipeAction } from '../protocol/constants.js';
import { PipeError } from '../protocol/errors.js';
import type { MacPolicy } from '../protocol/rules.js';
import { toPipeError } from './error-map.js';
import { type ActionContext, type ActionResult, PIPE_TABLE } from './table.js';

/** What the host has checked of a command and what the rows still check: its MAC policy and domain. */
export interface Admission {
  policy: MacPolicy;
  /** security.expected_domain, lower case. */
  expectedDomain: string;
}

/**
 * One session's side of the pipe: the main page plus zombie pages (background pages of the same
 * session, never activated, under the same origin policy), and the one dispatch path of the action
 * table (table.ts). No browser logic here.
 */
export class PipeExecutor {
  private readonly zombies = new Map<string, Page>();
  private zombieCount = 0;

  constructor(
    readonly session: Session,
    private readonly mainPage: Page,
    private readonly actionTimeoutMs: number,
  ) {}

  /** The page a command acts on. */
  pageFor(zombieId: string | undefined): Page {
    if (zombieId === undefined) return this.mainPage;
    const page = this.zombies.get(zombieId);
    if (!page || page.closed) {
      this.zombies.delete(zombieId);
      throw new PipeError(
        'invalid_params',
        `No zombie page "${zombieId}" (never spawned, killed, or closed by itself). Spawn one with zombieSpawn.`,
      );
    }
    return page;
  }

  /**
   * Validates the params with the action's schema, runs its row, and maps any failure to a pipe
   * error: bad params are invalid_params naming the field, engine errors keep their message.
   */
  async execute(action: PipeAction, params: unknown, admission: Admission): Promise<ActionResult> {
    const ctx = this.context(admission);
    const { result } = await dispatch(PIPE_TABLE, action, ctx, params ?? {}, {
      unknownMethod: (name) => new PipeError('unknown_action', `Unknown action "${name}".`),
      failure: (err, method) => {
        if (err instanceof InvalidParams) {
          const { path, problem } = err.describe();
          return invalidParams(method.name, path, problem);
        }
        // A navigation's failure to load is navigation_failed, not internal_error.
        return toPipeError(err, { navigation: method.effect === 'navigate' });
      },
    });
    return result;
  }

  /** One command's view of the session, with its domain checks (refusal order: domain, host, storage key). */
  private context({ policy, expectedDomain }: Admission): ActionContext {
    const domainAllowed = () => {
      const refusal = policy.domainRefusal(expectedDomain);
      if (refusal) throw new PipeError(refusal.code, refusal.message);
    };
    const actsOn = (acting: string | null) => {
      if (acting !== null && acting !== expectedDomain) {
        throw new PipeError(
          'domain_not_allowed',
          `expected_domain "${expectedDomain}" is not the host this command acts on ("${acting || '(no host: the page is blank)'}"). Navigate first, or set expected_domain to the page's host.`,
        );
      }
    };
    return {
      session: this.session,
      opts: { timeoutMs: this.actionTimeoutMs },
      page: (zombieId, how = {}) => {
        domainAllowed();
        if (how.loads !== undefined) {
          actsOn(hostOf(how.loads));
          return this.pageFor(zombieId);
        }
        const page = this.pageFor(zombieId);
        const host = hostOf(page.url());
        actsOn(how.blankOk && host === '' ? null : host);
        return page;
      },
      loads: (url) => {
        domainAllowed();
        actsOn(hostOf(url));
      },
      storageKey: (key) => {
        const refusal = policy.storageKeyRefusal(key);
        if (refusal) throw new PipeError(refusal.code, refusal.message);
      },
      zombies: {
        add: (page) => {
          const id = `zombie_${++this.zombieCount}`;
          this.zombies.set(id, page);
          return id;
        },
        forget: (id) => {
          this.zombies.delete(id);
        },
      },
    };
  }

  /** The ids of the live zombie pages. */
  zombieIds(): string[] {
    return [...this.zombies.keys()];
  }

  /** Closes the zombie pages (the session closes the rest). */
  async close(): Promise<void> {
    const ids = [...this.zombies.values()].map((z) => z.id);
    this.zombies.clear();
    await Promise.allSettled(ids.map((page_id) => ops.closeTab.call(this.session, { page_id })));
  }
}
