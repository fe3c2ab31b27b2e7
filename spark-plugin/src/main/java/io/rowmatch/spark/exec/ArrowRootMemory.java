package io.rowmatch.spark.exec;

import org.apache.spark.sql.util.ArrowUtils;

/**
 * What Spark's Arrow root allocator (the parent of every Rowmatch allocator) holds right now. Spark's
 * ArrowUtils is private to Spark's Scala packages; this is how Scala code outside them (tests, operators)
 * checks that every buffer came back.
 */
public final class ArrowRootMemory {
  private ArrowRootMemory() {}

  public static long allocatedBytes() {
    return ArrowUtils.rootAllocator().getAllocatedMemory();
  }

  public static String describe() {
    return ArrowUtils.rootAllocator().toVerboseString();
  }
}
