import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('pipe', 400, 15);
