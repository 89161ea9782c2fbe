/**
 * A scripted sgClaw pipe agent, for demos and tests. The browser side starts it:
 *
 *   tabwright pipe --rules rules.json --agent "node --import tsx examples/pipe-agent.ts http://127.0.0.1:8080/ 'getText={}'"
 *
 * Arguments: [--steps steps.json] [--keep-going] [URL] [ACTION=JSON_PARAMS | ACTION] …
 * It navigates to URL (when given), then runs the steps in order: each an
 * action with its params, or in a steps file
 * `[{"action":"click","params":{"selector":"#go"},"expect_error":"element_not_found"}]`.
 * Every result is one JSON line on stderr (stdout carries the protocol):
 *   {"step":1,"action":"navigate","ok":true,"seq":1,"data":{…},"aom_nodes":0,"timing":{…}}
 * Exit code 0 when every step did what it expected, 1 otherwise, 2 on a failed handshake.
 */
import { readFileSync } from 'node:fs';
import { PipeAgent, PipeHandshakeError, PipeToolError } from 'tabwright/pipe';

interface Step {
  action: string;
  params?: Record<string, unknown>;
  /** The step passes when the command fails with this code. */
  expect_error?: string;
  expected_domain?: string;
}

function parseArgs(argv: string[]): { steps: Step[]; keepGoing: boolean } {
  const steps: Step[] = [];
  let keepGoing = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--keep-going') keepGoing = true;
    else if (arg === '--steps') steps.push(...(JSON.parse(readFileSync(argv[++i]!, 'utf8')) as Step[]));
    else if (/^https?:\/\//.test(arg)) steps.push({ action: 'navigate', params: { url: arg } });
    else {
      const eq = arg.indexOf('=');
      const action = eq === -1 ? arg : arg.slice(0, eq);
      const params = eq === -1 ? {} : (JSON.parse(arg.slice(eq + 1)) as Record<string, unknown>);
      steps.push({ action, params });
    }
  }
  return { steps, keepGoing };
}

function report(line: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** Screenshots are summarized, not printed. */
function printable(data: Record<string, unknown>): Record<string, unknown> {
  if (typeof data.image !== 'string') return data;
  return { ...data, image: `<${data.image.length} base64 chars>` };
}

async function main(): Promise<number> {
  const { steps, keepGoing } = parseArgs(process.argv.slice(2));
  let agent: PipeAgent;
  try {
    agent = await PipeAgent.connect();
  } catch (err) {
    report({
      event: 'handshake_failed',
      code: err instanceof PipeHandshakeError ? err.code : 'error',
      error: String(err),
    });
    return 2;
  }
  report({ event: 'connected', agent_id: agent.agentId });
  let failed = 0;
  for (const [i, step] of steps.entries()) {
    const opts = step.expected_domain ? { expected_domain: step.expected_domain } : {};
    try {
      const r = await agent.tool.run(step.action, step.params ?? {}, opts);
      const ok = step.expect_error === undefined;
      report({
        step: i + 1,
        action: step.action,
        ok,
        seq: r.seq,
        data: printable(r.data),
        aom_nodes: r.aom_snapshot.length,
        aom_snapshot: r.aom_snapshot.slice(0, 50),
        timing: r.timing,
      });
      if (!ok) failed++;
    } catch (err) {
      if (!(err instanceof PipeToolError)) throw err;
      const ok = step.expect_error === err.code;
      report({
        step: i + 1,
        action: step.action,
        ok,
        seq: err.seq,
        local: err.local,
        code: err.code,
        error: err.message,
      });
      if (!ok) failed++;
    }
    if (failed && !keepGoing) break;
  }
  report({ event: 'done', steps: steps.length, failed });
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    report({ event: 'crashed', error: String(err) });
    process.exit(1);
  },
);
