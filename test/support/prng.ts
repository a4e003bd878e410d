/**
 * mulberry32, the seeded PRNG of the generated test and bench files (the same file on every machine and run): one
 * copy, in bench/support/random-file.ts (bench/ never imports test/; tests may use bench's generator).
 */
export { mulberry32 } from '../../bench/support/random-file.ts';
