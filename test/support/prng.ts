/**
 * mulberry32, the seeded PRNG of the generated test and bench files (the same file on every machine and run). The
 * one copy: tests import it from here, and so does the benchmarks' random-file generator (bench/ may use the
 * tests' support; no test imports bench/).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
