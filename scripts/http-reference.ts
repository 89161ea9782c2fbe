// Writes the generated method reference of docs/http-api.md from the HTTP door's table.
// Usage: npm run docs:http            (write)
//        npm run docs:http -- --check (exit 1 when the doc is stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_TABLE } from '../src/doors/http/methods.js';
import { methodReference, withReference } from '../src/doors/http/reference.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'http-api.md');
const doc = readFileSync(file, 'utf8');
const next = withReference(doc, methodReference(HTTP_TABLE));
if (process.argv.includes('--check')) {
  if (next !== doc) {
    process.stderr.write('docs/http-api.md: the method reference is stale; run npm run docs:http\n');
    process.exit(1);
  }
} else if (next !== doc) {
  writeFileSync(file, next);
  process.stdout.write('wrote docs/http-api.md (method reference)\n');
}
