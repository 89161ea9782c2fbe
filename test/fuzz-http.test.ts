import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('http', 400, 15);
