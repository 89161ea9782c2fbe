import { fuzzTest } from './helpers/fuzz/fuzz-test.js';

fuzzTest('js', 400, 15);
