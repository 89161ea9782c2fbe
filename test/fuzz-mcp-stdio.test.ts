import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('mcp-stdio', 400, 15);
