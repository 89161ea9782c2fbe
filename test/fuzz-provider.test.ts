import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('provider', 400, 15);
