import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('mcp-http', 400, 15);
