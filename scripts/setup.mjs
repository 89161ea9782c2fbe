#!/usr/bin/env node
// Installs what is missing before `npm start` and `npm test`:
//   1. npm packages (npm ci) when node_modules is absent or older than the lockfile;
//   2. Chromium: $TABWRIGHT_CHROMIUM or a known path; otherwise, as root,
//      `apt-get update && apt-get install -y chromium`; not root: print the command, exit 1;
//   3. OCR for ocr_image: tesseract with English and Simplified Chinese data; as root,
//      `apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim` when missing;
//      not root: print the command and go on (OCR is optional; its tests say what is missing);
//   4. Firefox (the second backend): `apt-get install -y firefox-esr` as root when missing;
//      with --test also what the Selenium Grid tests start: chromium-driver (matching Debian's
//      chromium), a Java runtime (openjdk-17-jre-headless) and strace (the egress test); not root:
//      print the command and go on;
//   5. the build (tsc, the lean playwright-core copies, the CLI bundle) when dist/ is missing or
//      older than src/ or the build's scripts.
// Plain JavaScript with no dependencies: it runs before anything is installed.
// Progress goes to stderr so stdout stays clean for whatever runs next.
import { execSync, spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => process.stderr.write(`[tabwright setup] ${msg}\n`);

function run(cmd, args, what) {
  say(`${what}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    say(`${what} failed (exit ${r.status ?? r.signal}). Fix the error above and run the command again.`);
    process.exit(1);
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestIn(dir) {
  let newest = 0;
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    newest = Math.max(newest, d.isDirectory() ? newestIn(p) : mtime(p));
  }
  return newest;
}

// 0. Node
const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  say(`Node ${process.versions.node} is too old; tabwright needs Node 20 or newer.`);
  process.exit(1);
}

// 1. npm packages
const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || mtime(lock) > mtime(installed)) {
  run('npm', ['ci', '--no-audit', '--no-fund'], 'installing npm packages');
}

// 2. Chromium
const candidates = JSON.parse(readFileSync(join(root, 'src/backends/chromium/candidates.json'), 'utf8'));
const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
let browser = process.env.TABWRIGHT_CHROMIUM;
if (browser && !executable(browser)) {
  say(`TABWRIGHT_CHROMIUM=${browser} is not an executable file. Fix or unset it.`);
  process.exit(1);
}
const searchPaths = process.env.TABWRIGHT_BROWSER_PATHS
  ? process.env.TABWRIGHT_BROWSER_PATHS.split(':').filter(Boolean)
  : candidates.paths;
browser ??= searchPaths.find(executable);
if (!browser) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    say('No Chromium found and not running as root, so it cannot be installed here.');
    say(`Install it with:  sudo sh -c '${candidates.installCommand}'`);
    say('or point TABWRIGHT_CHROMIUM at a Chromium or Chrome binary, then run this command again.');
    process.exit(1);
  }
  say("No Chromium found; installing Debian's chromium package (this takes a minute or two).");
  run('apt-get', ['update'], 'updating package lists');
  run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], 'installing chromium');
  browser = searchPaths.find(executable);
  if (!browser) {
    say('apt-get finished but no Chromium binary was found at the known paths. Set TABWRIGHT_CHROMIUM.');
    process.exit(1);
  }
}
try {
  const v = execSync(`"${browser}" --version`, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 10000,
  });
  say(`browser: ${browser} (${v.trim()})`);
} catch {
  say(`browser: ${browser} (version unknown)`);
}

// 3. OCR (ocr_image's built-in engine; TABWRIGHT_OCR_COMMAND replaces it)
const OCR_PACKAGES = ['tesseract-ocr', 'tesseract-ocr-eng', 'tesseract-ocr-chi-sim'];
const ocrLanguages = () => {
  const r = spawnSync('tesseract', ['--list-langs'], { encoding: 'utf8', timeout: 10000 });
  if (r.error || r.status !== 0) return null;
  return `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.trim());
};
const ocrReady = () => {
  const langs = ocrLanguages();
  return langs?.includes('eng') && langs.includes('chi_sim');
};
if (process.env.TABWRIGHT_SKIP_OCR_SETUP !== '1' && !ocrReady()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const command = `apt-get install -y --no-install-recommends ${OCR_PACKAGES.join(' ')}`;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    say(
      `tesseract (with eng and chi_sim) not found: ocr_image needs it or TABWRIGHT_OCR_COMMAND. Install: sudo ${command}`,
    );
  } else {
    say('installing tesseract for ocr_image (Debian packages, a few MB)');
    const apt = (args) => spawnSync('apt-get', args, { cwd: root, stdio: ['ignore', 2, 2] }).status === 0;
    const ok =
      apt(['install', '-y', '--no-install-recommends', ...OCR_PACKAGES]) ||
      (apt(['update']) && apt(['install', '-y', '--no-install-recommends', ...OCR_PACKAGES]));
    if (!ok || !ocrReady())
      say(`installing tesseract failed; ocr_image will report engineMissing. Try: ${command}`);
  }
}
if (ocrReady()) say('ocr: tesseract (eng, chi_sim)');

// 4. Firefox, and for the tests the Grid's driver and Java (Debian packages)
const onPath = (name) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir && executable(join(dir, name)));
const wanted = [['firefox-esr', () => onPath('firefox-esr') || onPath('firefox')]];
if (process.argv.includes('--test')) {
  wanted.push(['chromium-driver', () => onPath('chromedriver')]);
  wanted.push(['openjdk-17-jre-headless', () => onPath('java')]);
  // test/browser-egress.test.ts traces the browsers' connect() calls: a DNS query is too short-lived
  // for any poll of the socket tables to see.
  wanted.push(['strace', () => onPath('strace')]);
}
const missing = wanted.filter(([, present]) => !present()).map(([pkg]) => pkg);
if (missing.length > 0) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.env.TABWRIGHT_SKIP_APT === '1') {
    say(
      `not installed: ${missing.join(', ')} (TABWRIGHT_SKIP_APT=1: apt-get not run). Install: sudo ${command}`,
    );
  } else if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    say(
      `not installed: ${missing.join(', ')} (Firefox sessions and the Grid tests need them). Install: sudo ${command}`,
    );
  } else {
    say(`installing ${missing.join(', ')} (Debian packages)`);
    const apt = (args) => spawnSync('apt-get', args, { cwd: root, stdio: ['ignore', 2, 2] }).status === 0;
    const ok =
      apt(['install', '-y', '--no-install-recommends', ...missing]) ||
      (apt(['update']) && apt(['install', '-y', '--no-install-recommends', ...missing]));
    if (!ok) say(`installing ${missing.join(', ')} failed. Try: ${command}`);
  }
}
for (const [pkg, present] of wanted) if (present()) say(`${pkg}: installed`);

// 5. Build
const stamp = join(root, 'dist', '.build-stamp');
const sourcesChanged =
  Math.max(
    newestIn(join(root, 'src')),
    mtime(join(root, 'package.json')),
    // The CLI bundle holds copies of the dependencies: a changed lock file means a new build.
    mtime(join(root, 'package-lock.json')),
    mtime(join(root, 'tsconfig.build.json')),
    mtime(join(root, 'scripts/lean-playwright.mjs')),
    mtime(join(root, 'scripts/bundle-cli.mjs')),
  ) > mtime(stamp);
if (sourcesChanged) {
  run('npm', ['run', '-s', 'build'], 'building');
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
say('ready');
