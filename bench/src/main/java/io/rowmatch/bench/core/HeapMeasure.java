package io.rowmatch.bench.core;

/**
 * Rough heap used by a structure: used heap after full GCs before building it and after building it (while
 * the caller still holds it). Good to a few percent for the hundreds of MB a boxed-key map holds; only used
 * for the memory column of the boxed anchor.
 */
final class HeapMeasure {
  private HeapMeasure() {}

  static long usedAfterGc() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}
