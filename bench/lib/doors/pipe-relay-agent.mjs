/**
 * The sgClaw pipe agent of the snapshot-doors benchmark. `tabwright pipe` spawns it (its stdin and
 * stdout carry the signed protocol); it connects back to the benchmark on 127.0.0.1:<port> and runs
 * each command line it gets there through the agent SDK, answering with the time the SDK call took
 * (sign, send, the host's work, the reply, its verification and decoding) and the reply's size.
 *
 *   in:  {"id":1,"action":"getAomSnapshot","params":{}}
 *   out: {"id":1,"ok":true,"ms":12.3,"nodes":811,"chars":123456}
 */
import { connect } from 'node:net';
import { PipeAgent } from 'tabwright/pipe';

const port = Number(process.argv[2]);
const agent = await PipeAgent.connect({ logger: () => {} });
const socket = connect(port, '127.0.0.1');
socket.setEncoding('utf8');
socket.setNoDelay(true);
let buf = '';
socket.on('data', (chunk) => {
  buf += chunk;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    void run(JSON.parse(line));
  }
});
socket.on('close', () => process.exit(0));

async function run({ id, action, params, expected_domain }) {
  const t = performance.now();
  try {
    const r = await agent.tool.run(action, params ?? {}, { expected_domain, timeoutMs: 60_000 });
    const ms = performance.now() - t;
    socket.write(
      `${JSON.stringify({ id, ok: true, ms, nodes: r.aom_snapshot.length, chars: JSON.stringify(r.aom_snapshot).length })}\n`,
    );
  } catch (err) {
    socket.write(`${JSON.stringify({ id, ok: false, error: String(err?.message ?? err) })}\n`);
  }
}
