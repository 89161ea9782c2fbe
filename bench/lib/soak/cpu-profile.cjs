// A CPU profile of an engine process under the soak, written when it exits:
// TABWRIGHT_SOAK_NODE_OPTIONS="--require ./bench/lib/soak/cpu-profile.cjs" npm run bench:soak -- …
// Profiles go to $TABWRIGHT_CPU_PROFILE_DIR (default: the working directory), one <pid>.cpuprofile each
// (open them in Chrome DevTools). Node 20 refuses --cpu-prof in NODE_OPTIONS, hence the preload.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new inspector.Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 2000 });
session.post('Profiler.start');
process.once('exit', () => {
  session.post('Profiler.stop', (err, r) => {
    if (err) return;
    const dir = process.env.TABWRIGHT_CPU_PROFILE_DIR || process.cwd();
    writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(r.profile));
  });
});
